import type { Me } from '@testreport/contract';
import type { UserRepo } from '../accounts/userRepo.js';
import { toUser } from '../accounts/present.js';
import type { Principal } from '../authz/principal.js';
import { NotFoundError, UnauthorizedError } from '../lib/errors.js';
import type { ProjectRepo } from '../projects/repo.js';
import { toProject } from '../projects/present.js';
import type { TeamRepo } from '../teams/repo.js';

export const toTeamWithRole = (t: { id: string; name: string; created_at: string; role: string }) => ({
  id: t.id,
  name: t.name,
  createdAt: t.created_at,
  role: t.role as 'owner' | 'admin' | 'member' | 'viewer',
});

/** GET /me: who the caller is (decisions §5). */
export function createMeService(deps: { users: UserRepo; teams: TeamRepo; projects: ProjectRepo }) {
  return {
    async get(principal: Principal): Promise<Me> {
      if (principal.kind === 'apiKey') {
        const project = await deps.projects.findById(principal.projectId);
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
      const teams = await deps.teams.listForUser(user.id);
      return { type: 'user', user: toUser(user), teams: teams.map(toTeamWithRole) };
    },
  };
}
export type MeService = ReturnType<typeof createMeService>;
