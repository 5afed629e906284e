import type { TeamRole } from '@testreport/contract';
import type { Db } from '../db/database.js';
import { deleteProjectsWithInsights } from '../insights/forgetProjects.js';
import type { TeamMembersTable, TeamsTable } from '../db/schema.js';

/** The team and its first owner, written together. */
async function insertTeamWithOwner(trx: Db, team: TeamsTable, owner: TeamMembersTable) {
  await trx.insertInto('teams').values(team).execute();
  await trx.insertInto('team_members').values(owner).execute();
}

export function createTeamRepo(db: Db) {
  return {
    async insert(team: TeamsTable, owner: TeamMembersTable) {
      await db.transaction().execute((trx) => insertTeamWithOwner(trx, team, owner));
    },
    findById(id: string) {
      return db.selectFrom('teams').selectAll().where('id', '=', id).executeTakeFirst();
    },
    /** Teams a user belongs to, with the user's role, oldest first. */
    listForUser(userId: string) {
      return db
        .selectFrom('teams as t')
        .innerJoin('team_members as tm', 'tm.team_id', 't.id')
        .select(['t.id', 't.name', 't.created_at', 't.updated_at', 'tm.role'])
        .where('tm.user_id', '=', userId)
        .orderBy('t.id', 'asc')
        .execute() as Promise<Array<TeamsTable & { role: TeamRole }>>;
    },
    async update(id: string, patch: Partial<Pick<TeamsTable, 'name' | 'updated_at'>>) {
      await db.updateTable('teams').set(patch).where('id', '=', id).execute();
    },
    async delete(id: string) {
      await deleteProjectsWithInsights(db, async (trx) => {
        // The projects by name and in one statement, rather than by the team's cascade: the ids
        // returned are exactly the projects deleted, whatever was created meanwhile.
        const projects = await trx.deleteFrom('projects').where('team_id', '=', id).returning('id').execute();
        await trx.deleteFrom('teams').where('id', '=', id).execute();
        return projects.map((p) => p.id);
      });
    },
  };
}
export type TeamRepo = ReturnType<typeof createTeamRepo>;
