import type { TeamRole } from '@testreport/contract';
import type { Db } from '../db/database.js';
import type { TeamMembersTable } from '../db/schema.js';

export interface MemberRow {
  id: string;
  team_id: string;
  user_id: string;
  role: TeamRole;
  joined_at: string;
  name: string;
  email: string;
  avatar_url: string | null;
}

/** Team memberships joined with the user they belong to. */
export function createMemberRepo(db: Db) {
  const withUser = () =>
    db
      .selectFrom('team_members as tm')
      .innerJoin('users as u', 'u.id', 'tm.user_id')
      .select(['tm.id', 'tm.team_id', 'tm.user_id', 'tm.role', 'tm.joined_at', 'u.name', 'u.email', 'u.avatar_url']);
  return {
    async insert(row: TeamMembersTable) {
      await db.insertInto('team_members').values(row).execute();
    },
    listByTeam(teamId: string) {
      return withUser().where('tm.team_id', '=', teamId).orderBy('tm.joined_at', 'asc').orderBy('tm.id', 'asc').execute() as Promise<MemberRow[]>;
    },
    findById(id: string) {
      return withUser().where('tm.id', '=', id).executeTakeFirst() as Promise<MemberRow | undefined>;
    },
    findByEmail(teamId: string, email: string) {
      return withUser().where('tm.team_id', '=', teamId).where('u.email', '=', email).executeTakeFirst() as Promise<MemberRow | undefined>;
    },
    findByUser(teamId: string, userId: string) {
      return withUser().where('tm.team_id', '=', teamId).where('tm.user_id', '=', userId).executeTakeFirst() as Promise<MemberRow | undefined>;
    },
    async countOwners(teamId: string): Promise<number> {
      const r = await db.selectFrom('team_members').select((eb) => eb.fn.countAll<number>().as('n')).where('team_id', '=', teamId).where('role', '=', 'owner').executeTakeFirstOrThrow();
      return Number(r.n);
    },
    async updateRole(id: string, role: TeamRole) {
      await db.updateTable('team_members').set({ role }).where('id', '=', id).execute();
    },
    async delete(id: string) {
      await db.deleteFrom('team_members').where('id', '=', id).execute();
    },
  };
}
export type MemberRepo = ReturnType<typeof createMemberRepo>;
