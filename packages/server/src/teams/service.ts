import type { ResponseOf } from '@testreport/contract';
import type { Principal } from '../authz/principal.js';
import type { Deps } from '../deps.js';
import { NotFoundError, UnauthorizedError } from '../lib/errors.js';
import { newId } from '../lib/ids.js';
import { toTeamWithRole } from '../me/service.js';
import { removeProjectFiles } from '../projects/files.js';
import { createProjectRepo } from '../projects/repo.js';
import { createTeamRepo } from './repo.js';

type TeamWithRole = ResponseOf<'teams.list'>['data'][number];

export function createTeamService(deps: Deps) {
  const { db, config, authz } = deps;
  const teams = createTeamRepo(db);

  return {
    async list(principal: Principal): Promise<TeamWithRole[]> {
      if (principal.kind !== 'user') throw new UnauthorizedError();
      return (await teams.listForUser(principal.userId)).map(toTeamWithRole);
    },

    /** Any signed-in user may start a team; they become its owner. */
    async create(principal: Principal, name: string): Promise<ResponseOf<'teams.create'>> {
      if (principal.kind !== 'user') throw new UnauthorizedError();
      const now = config.now().toISOString();
      const team = { id: newId(), name, created_at: now, updated_at: now };
      await teams.insert(team, { id: newId(), team_id: team.id, user_id: principal.userId, role: 'owner', joined_at: now });
      return { id: team.id, name, createdAt: now };
    },

    async rename(principal: Principal, id: string, name: string): Promise<ResponseOf<'teams.update'>> {
      await authz.team(principal, id, 'teams.rename', 'resource');
      const updatedAt = config.now().toISOString();
      await teams.update(id, { name, updated_at: updatedAt });
      const team = await teams.findById(id);
      if (!team) throw new NotFoundError('Team');
      return { id, name: team.name, createdAt: team.created_at, updatedAt };
    },

    /** Deletes the team; the database cascades to its members, invitations and projects with all they own. */
    async delete(principal: Principal, id: string): Promise<ResponseOf<'teams.delete'>> {
      await authz.team(principal, id, 'teams.delete', 'resource');
      const projectIds = await db.transaction().execute(async (trx) => {
        const ids = (await createProjectRepo(trx).listIdsByTeam(id)).map((p) => p.id);
        await createTeamRepo(trx).delete(id);
        return ids;
      });
      await removeProjectFiles(deps, projectIds);
      return { success: true, message: `Team deleted with ${projectIds.length} project${projectIds.length === 1 ? '' : 's'}` };
    },
  };
}
export type TeamService = ReturnType<typeof createTeamService>;
