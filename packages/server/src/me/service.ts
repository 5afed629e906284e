import type { Me } from '@testreport/contract';
import { toUser } from '../accounts/present.js';
import type { UserService } from '../accounts/users.js';
import type { Principal } from '../authz/principal.js';
import { NotFoundError, UnauthorizedError } from '../lib/errors.js';
import { toProject } from '../projects/present.js';
import type { ProjectService } from '../projects/service.js';
import { toTeamWithRole } from '../teams/present.js';
import type { TeamService } from '../teams/service.js';

/** GET /me: who the caller is (docs/decisions.md §5). Reads only the caller's own records, so no policy check. */
export function createMeService(deps: { users: UserService; teams: TeamService; projects: ProjectService }) {
  return {
    async get(principal: Principal): Promise<Me> {
      if (principal.kind === 'apiKey') {
        const project = await deps.projects.internal.findById(principal.projectId);
        if (!project) throw new NotFoundError('Project');
        return {
          type: 'apiKey',
          apiKey: { id: principal.keyId, name: principal.name, projectId: principal.projectId, expiresAt: principal.expiresAt },
          project: toProject(project),
        };
      }
      if (principal.kind !== 'user') throw new UnauthorizedError();
      const user = await deps.users.findById(principal.userId);
      if (!user) throw new UnauthorizedError();
      const teams = await deps.teams.internal.listForUser(user.id);
      return { type: 'user', user: toUser(user), teams: teams.map(toTeamWithRole) };
    },
  };
}
export type MeService = ReturnType<typeof createMeService>;
