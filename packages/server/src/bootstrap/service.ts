import type { ApiKeyService } from '../apiKeys/service.js';
import type { UserRepo } from '../accounts/userRepo.js';
import type { ServerConfig } from '../config.js';
import type { Db } from '../db/database.js';
import { hashPassword } from '../lib/crypto.js';
import { newId } from '../lib/ids.js';
import type { ProjectRepo } from '../projects/repo.js';
import type { TeamRepo } from '../teams/repo.js';

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
 * so a self-hoster can report within a minute (decisions §2). Idempotent on e-mail, team and
 * project names; a new API key is minted on every call because only its hash is ever stored.
 */
export function createBootstrapService(deps: { db: Db; config: ServerConfig; users: UserRepo; teams: TeamRepo; projects: ProjectRepo; apiKeys: ApiKeyService }) {
  const { config, users, teams, projects, apiKeys } = deps;
  return {
    async isEmpty(): Promise<boolean> {
      const row = await deps.db.selectFrom('users').select('id').limit(1).executeTakeFirst();
      return !row;
    },

    async init(input: { email: string; password: string; team?: string; project?: string; keyName?: string }): Promise<InitResult> {
      const email = input.email.trim().toLowerCase();
      const teamName = input.team ?? 'My Team';
      const projectName = input.project ?? 'My Project';
      const now = config.now().toISOString();
      const created = { user: false, team: false, project: false };

      let user = await users.findByEmail(email);
      if (!user) {
        user = {
          id: newId(), email, name: email.split('@')[0], password_hash: await hashPassword(input.password),
          email_verified_at: now, avatar_url: null, created_at: now, updated_at: now,
        };
        await users.insert(user);
        created.user = true;
      } else if (!user.email_verified_at) {
        await users.update(user.id, { email_verified_at: now, updated_at: now });
      }

      let team = (await teams.listForUser(user.id)).find((t) => t.name === teamName && t.role === 'owner');
      if (!team) {
        const t = { id: newId(), name: teamName, created_at: now, updated_at: now };
        await teams.insert(t, { id: newId(), team_id: t.id, user_id: user.id, role: 'owner', joined_at: now });
        team = { ...t, role: 'owner' };
        created.team = true;
      }

      let project = (await projects.listByTeam(team.id)).find((p) => p.name === projectName);
      if (!project) {
        project = { id: newId(), team_id: team.id, name: projectName, created_at: now, updated_at: now };
        await projects.insert(project);
        created.project = true;
      }

      const key = await apiKeys.mint({ projectId: project.id, name: input.keyName ?? 'init', createdBy: user.id });
      return { userId: user.id, teamId: team.id, projectId: project.id, apiKey: key.key, email, created };
    },
  };
}
export type BootstrapService = ReturnType<typeof createBootstrapService>;
