import { SETTINGS_DEFAULTS, type Project, type ProjectSettings, type ResponseOf } from '@testreport/contract';
import type { Principal } from '../authz/principal.js';
import type { Deps } from '../deps.js';
import type { Updateable } from 'kysely';
import type { ProjectSettingsTable } from '../db/schema.js';
import { ForbiddenError, NotFoundError, UnauthorizedError } from '../lib/errors.js';
import { newId } from '../lib/ids.js';
import { removeProjectFiles } from './files.js';
import { toProject, toSettings } from './present.js';
import { createProjectRepo } from './repo.js';

type SettingsPatch = { dataRetentionDays?: number; flakinessThreshold?: number; autoQuarantineEnabled?: boolean; defaultBranch?: string; shardTimeoutMinutes?: number; autoQuarantineMinRuns?: number; autoReleaseAfterPasses?: number };

const settingsColumns = (p: SettingsPatch): Updateable<ProjectSettingsTable> => ({
  ...(p.dataRetentionDays !== undefined ? { data_retention_days: p.dataRetentionDays } : {}),
  ...(p.flakinessThreshold !== undefined ? { flakiness_threshold: p.flakinessThreshold } : {}),
  ...(p.autoQuarantineEnabled !== undefined ? { auto_quarantine_enabled: p.autoQuarantineEnabled ? 1 : 0 } : {}),
  ...(p.defaultBranch !== undefined ? { default_branch: p.defaultBranch } : {}),
  ...(p.shardTimeoutMinutes !== undefined ? { shard_timeout_minutes: p.shardTimeoutMinutes } : {}),
  ...(p.autoQuarantineMinRuns !== undefined ? { auto_quarantine_min_runs: p.autoQuarantineMinRuns } : {}),
  ...(p.autoReleaseAfterPasses !== undefined ? { auto_release_after_passes: p.autoReleaseAfterPasses } : {}),
});

export function createProjectService(deps: Deps) {
  const { db, config, authz } = deps;
  const projects = createProjectRepo(db);

  async function projectOrThrow(id: string) {
    const row = await projects.findById(id);
    if (!row) throw new NotFoundError('Project');
    return row;
  }

  /**
   * Internal, for other services (onboarding, bootstrap, team deletion, GET /me): no principal and
   * no authorization check, which stays with the calling service. Inside `inTransaction` these join
   * the caller's transaction.
   */
  const internal = {
    /** A new project of `teamId`, written with its default settings row. */
    async createWithSettings(teamId: string, name: string) {
      const now = config.now().toISOString();
      const row = { id: newId(), team_id: teamId, name, created_at: now, updated_at: now };
      await projects.insert(row);
      return row;
    },
    findById(id: string) {
      return projects.findById(id);
    },
    /** Newest first. */
    listByTeam(teamId: string) {
      return projects.listByTeam(teamId);
    },
    /** The branch run summaries compare with when the caller names none. */
    async defaultBranch(projectId: string): Promise<string> {
      return (await projects.findSettings(projectId))?.default_branch ?? SETTINGS_DEFAULTS.defaultBranch;
    },
    async listIdsByTeam(teamId: string): Promise<string[]> {
      return (await projects.listIdsByTeam(teamId)).map((p) => p.id);
    },
  };

  return {
    internal,

    /** A team's projects; an API key sees only its own project, and only when asking for its own team. */
    async list(principal: Principal, teamId: string): Promise<Project[]> {
      if (principal.kind === 'apiKey') {
        const access = await authz.project(principal, principal.projectId, 'read', 'param');
        if (access.teamId !== teamId) throw new ForbiddenError('This API key is scoped to a project of another team');
        return [toProject(await projectOrThrow(principal.projectId))];
      }
      if (principal.kind !== 'user') throw new UnauthorizedError();
      await authz.team(principal, teamId, 'read', 'param');
      return (await projects.listByTeam(teamId)).map(toProject);
    },

    async create(principal: Principal, input: { teamId: string; name: string }): Promise<Project> {
      await authz.team(principal, input.teamId, 'projects.create', 'param');
      return toProject(await internal.createWithSettings(input.teamId, input.name));
    },

    async get(principal: Principal, id: string): Promise<Project> {
      await authz.project(principal, id, 'read', 'resource');
      return toProject(await projectOrThrow(id));
    },

    /** Name and settings fields in one transaction (docs/decisions.md §4: PATCH /projects/:id takes both). */
    async update(principal: Principal, id: string, patch: SettingsPatch & { name?: string }): Promise<ResponseOf<'projects.update'>> {
      await authz.project(principal, id, 'projects.manage', 'resource');
      const now = config.now().toISOString();
      const settings = settingsColumns(patch);
      await db.transaction().execute(async (trx) => {
        const repo = createProjectRepo(trx);
        if (patch.name !== undefined || Object.keys(settings).length > 0) {
          await repo.update(id, { ...(patch.name !== undefined ? { name: patch.name } : {}), updated_at: now });
        }
        if (Object.keys(settings).length > 0) await repo.updateSettings(id, { ...settings, updated_at: now });
      });
      const row = await projectOrThrow(id);
      return { id: row.id, name: row.name, teamId: row.team_id, updatedAt: row.updated_at };
    },

    /** The database cascades to runs, tests, suites, artifacts, keys and webhooks; then the files go. */
    async delete(principal: Principal, id: string): Promise<ResponseOf<'projects.delete'>> {
      await authz.project(principal, id, 'projects.delete', 'resource');
      await projects.delete(id);
      await removeProjectFiles(deps, [id]);
      return { success: true, message: 'Project deleted with its runs, tests, artifacts, API keys and webhooks' };
    },

    async getSettings(principal: Principal, id: string): Promise<ProjectSettings> {
      await authz.project(principal, id, 'read', 'resource');
      const row = await projects.findSettings(id);
      if (!row) throw new NotFoundError('Project');
      return toSettings(row);
    },

    /** Only the fields given change. */
    async updateSettings(principal: Principal, id: string, patch: SettingsPatch): Promise<ProjectSettings> {
      await authz.project(principal, id, 'projects.manage', 'resource');
      const settings = settingsColumns(patch);
      if (Object.keys(settings).length > 0) await projects.updateSettings(id, { ...settings, updated_at: config.now().toISOString() });
      const row = await projects.findSettings(id);
      if (!row) throw new NotFoundError('Project');
      return toSettings(row);
    },
  };
}
export type ProjectService = ReturnType<typeof createProjectService>;
