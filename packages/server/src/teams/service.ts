import type { ResponseOf } from '@testreport/contract';
import type { Principal } from '../authz/principal.js';
import type { Deps } from '../deps.js';
import { inTransaction } from '../db/transaction.js';
import { NotFoundError, UnauthorizedError } from '../lib/errors.js';
import { newId } from '../lib/ids.js';
import { removeProjectFiles } from '../projects/files.js';
import type { ProjectService } from '../projects/service.js';
import { toTeamWithRole, type TeamWithRole } from './present.js';
import { createTeamRepo } from './repo.js';

/** `projects`: team deletion lists the team's projects through it, to remove their files. */
export function createTeamService(deps: Deps, projects: ProjectService) {
  const { db, config, authz } = deps;
  const teams = createTeamRepo(db);

  /**
   * Internal, for other services (onboarding, bootstrap): no principal and no authorization check,
   * which stays with the calling service. Inside `inTransaction` these join the caller's transaction.
   */
  const internal = {
    /** A new team with `userId` as its owner, written together. */
    async createWithOwner(userId: string, name: string) {
      const now = config.now().toISOString();
      const team = { id: newId(), name, created_at: now, updated_at: now };
      await teams.insert(team, { id: newId(), team_id: team.id, user_id: userId, role: 'owner', joined_at: now });
      return team;
    },
    /** The teams `userId` belongs to, with their role, oldest first. */
    listForUser(userId: string) {
      return teams.listForUser(userId);
    },
  };

  return {
    internal,

    async list(principal: Principal): Promise<TeamWithRole[]> {
      if (principal.kind !== 'user') throw new UnauthorizedError();
      return (await teams.listForUser(principal.userId)).map(toTeamWithRole);
    },

    /** Any signed-in user may start a team; they become its owner. */
    async create(principal: Principal, name: string): Promise<ResponseOf<'teams.create'>> {
      if (principal.kind !== 'user') throw new UnauthorizedError();
      const team = await internal.createWithOwner(principal.userId, name);
      return { id: team.id, name, createdAt: team.created_at };
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
      const projectIds = await inTransaction(db, async () => {
        const ids = await projects.internal.listIdsByTeam(id);
        await teams.delete(id);
        return ids;
      });
      await removeProjectFiles(deps, projectIds);
      return { success: true, message: `Team deleted with ${projectIds.length} project${projectIds.length === 1 ? '' : 's'}` };
    },
  };
}
export type TeamService = ReturnType<typeof createTeamService>;
