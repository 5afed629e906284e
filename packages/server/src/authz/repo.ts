import type { TeamRole } from '@testreport/contract';
import type { Db } from '../db/database.js';
import { prepared } from '../db/prepared.js';

/** Asked by nearly every request: compiled once (db/prepared.ts). */
const roleInProject = prepared((db, v: Record<'projectId' | 'userId', string>) =>
  db
    .selectFrom('projects as p')
    .leftJoin('team_members as tm', (j) => j.onRef('tm.team_id', '=', 'p.team_id').on('tm.user_id', '=', v.userId))
    .select(['p.team_id', 'tm.role'])
    .where('p.id', '=', v.projectId),
);

export function createAuthzRepo(db: Db) {
  return {
    /** The project's team and the user's role in it (null role when not a member). Null when no project. */
    async projectRole(projectId: string, userId: string): Promise<{ teamId: string; role: TeamRole | null } | null> {
      const row = (await roleInProject(db, { projectId, userId })).rows[0];
      return row ? { teamId: row.team_id, role: (row.role as TeamRole | null) ?? null } : null;
    },
    async teamRole(teamId: string, userId: string): Promise<TeamRole | null> {
      const row = await db
        .selectFrom('team_members')
        .select('role')
        .where('team_id', '=', teamId)
        .where('user_id', '=', userId)
        .executeTakeFirst();
      return (row?.role as TeamRole | undefined) ?? null;
    },
  };
}
export type AuthzRepo = ReturnType<typeof createAuthzRepo>;
