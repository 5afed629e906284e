import type { UserService } from '../accounts/users.js';
import type { ApiKeyService } from '../apiKeys/service.js';
import type { ProjectService } from '../projects/service.js';
import type { TeamService } from '../teams/service.js';

export interface InitResult {
  userId: string;
  teamId: string;
  projectId: string;
  apiKey: string;
  email: string;
  created: { user: boolean; team: boolean; project: boolean };
}

/**
 * `reporter-server init` and the first start: a verified owner, a team, a project and one API key,
 * so a self-hoster can report within a minute (docs/decisions.md §2). Idempotent on e-mail, team and
 * project names; a new API key is minted on every call because only its hash is ever stored.
 */
export function createBootstrapService(deps: { users: UserService; teams: TeamService; projects: ProjectService; apiKeys: ApiKeyService }) {
  const { users, apiKeys } = deps;
  const teams = deps.teams.internal;
  const projects = deps.projects.internal;
  return {
    isEmpty: () => users.isEmpty(),

    async init(input: { email: string; password: string; team?: string; project?: string; keyName?: string }): Promise<InitResult> {
      const email = input.email.trim().toLowerCase();
      const teamName = input.team ?? 'My Team';
      const projectName = input.project ?? 'My Project';
      const created = { user: false, team: false, project: false };

      let user = await users.findByEmail(email);
      if (!user) {
        user = await users.createVerified(email, input.password);
        created.user = true;
      } else if (!user.email_verified_at) {
        await users.markVerified(user.id);
      }

      let team: { id: string } | undefined = (await teams.listForUser(user.id)).find((t) => t.name === teamName && t.role === 'owner');
      if (!team) {
        team = await teams.createWithOwner(user.id, teamName);
        created.team = true;
      }

      let project = (await projects.listByTeam(team.id)).find((p) => p.name === projectName);
      if (!project) {
        project = await projects.createWithSettings(team.id, projectName);
        created.project = true;
      }

      const key = await apiKeys.mint({ projectId: project.id, name: input.keyName ?? 'init', createdBy: user.id });
      return { userId: user.id, teamId: team.id, projectId: project.id, apiKey: key.key, email, created };
    },
  };
}
export type BootstrapService = ReturnType<typeof createBootstrapService>;
