import type { TeamRole } from '@testreport/contract';
import { AppError, ForbiddenError, NotFoundError } from '../lib/errors.js';
import { apiKeyAllows, roleAllows, type Action } from './policy.js';
import type { Principal } from './principal.js';
import type { AuthzRepo } from './repo.js';

/**
 * How the scope was named: `param` = an explicit projectId/teamId in the query or body (out of
 * reach → 403); `resource` = derived from a resource id in the path (out of reach → 404, so the
 * resource's existence is not leaked). Decisions §3.
 */
export type ScopeVia = 'param' | 'resource';

export interface ProjectAccess {
  projectId: string;
  teamId: string;
  /** The user's team role; null for an API key. */
  role: TeamRole | null;
}

export function createAuthz(repo: AuthzRepo) {
  const sameTeam = async (a: string, b: string) => {
    const [x, y] = await Promise.all([repo.projectRole(a, ''), repo.projectRole(b, '')]);
    return !!x && !!y && x.teamId === y.teamId;
  };
  const outOfReach = (via: ScopeVia, what: string) => (via === 'param' ? new ForbiddenError(`You have no access to this ${what}`) : new NotFoundError(what === 'project' ? 'Project' : 'Team'));

  return {
    /** Throws unless the principal may perform `action` on the project. */
    async project(principal: Principal, projectId: string, action: Action, via: ScopeVia, what = 'project'): Promise<ProjectAccess> {
      if (principal.kind === 'apiKey') {
        // Like a team member lacking the role, a key asking for a key-forbidden action on a sibling
        // project of its own team gets 403; outside its team the project stays hidden (404).
        if (principal.projectId !== projectId) {
          const forbiddenInOwnTeam = !apiKeyAllows(action) && (await sameTeam(principal.projectId, projectId));
          if (!forbiddenInOwnTeam) throw via === 'param' ? new ForbiddenError('This API key is scoped to another project') : new NotFoundError(capital(what));
        }
        if (!apiKeyAllows(action)) throw new ForbiddenError('API keys cannot perform this action; sign in as a team admin');
        // Only the key's own project gets here; its team came with the key (apiKeys/repo.ts), which
        // exists only while its project does: no statement of its own per request.
        return { projectId, teamId: principal.teamId, role: null };
      }
      if (principal.kind !== 'user') throw new ForbiddenError();
      const scope = await repo.projectRole(projectId, principal.userId);
      if (!scope || !scope.role) throw via === 'param' ? new ForbiddenError('You have no access to this project') : new NotFoundError(capital(what));
      if (!roleAllows(scope.role, action)) throw new ForbiddenError(`Your role (${scope.role}) does not allow this action`);
      return { projectId, teamId: scope.teamId, role: scope.role };
    },

    /**
     * A batch's items each name a project (explicitly, `via: 'param'`): every distinct one must allow
     * `action`, and a refusal names the field of the first item that named it (`suites[3].projectId`).
     */
    async projectsOfItems(principal: Principal, items: { projectId: string }[], action: Action, fieldOf: (index: number, field: string) => string): Promise<void> {
      const firstIndex = new Map<string, number>();
      items.forEach((item, i) => firstIndex.has(item.projectId) || firstIndex.set(item.projectId, i));
      for (const [projectId, i] of firstIndex) {
        try {
          await this.project(principal, projectId, action, 'param');
        } catch (err) {
          if (err instanceof AppError) throw new AppError(err.status, err.code, err.message, { ...err.details, field: fieldOf(i, 'projectId') });
          throw err;
        }
      }
    },

    /** Throws unless the principal (a user) may perform `action` on the team. Returns the role. */
    async team(principal: Principal, teamId: string, action: Action, via: ScopeVia): Promise<TeamRole> {
      if (principal.kind === 'apiKey') throw via === 'param' ? new ForbiddenError('API keys cannot act on teams') : new NotFoundError('Team');
      if (principal.kind !== 'user') throw new ForbiddenError();
      const role = await repo.teamRole(teamId, principal.userId);
      if (!role) throw outOfReach(via, 'team');
      if (!roleAllows(role, action)) throw new ForbiddenError(`Your role (${role}) does not allow this action`);
      return role;
    },
  };
}
export type Authz = ReturnType<typeof createAuthz>;

const capital = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);
