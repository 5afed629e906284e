import { SETTINGS_DEFAULTS } from '@testreport/contract';
import type { Db } from '../db/database.js';
import { deleteProjectsWithInsights } from '../insights/forgetProjects.js';
import type { Updateable } from 'kysely';
import type { ProjectSettingsTable, ProjectsTable } from '../db/schema.js';

/** A project always comes with its settings row. */
async function insertProjectWithSettings(trx: Db, project: ProjectsTable) {
  await trx.insertInto('projects').values(project).execute();
  await trx
    .insertInto('project_settings')
    .values({
      project_id: project.id,
      data_retention_days: SETTINGS_DEFAULTS.dataRetentionDays,
      flakiness_threshold: SETTINGS_DEFAULTS.flakinessThreshold,
      auto_quarantine_enabled: SETTINGS_DEFAULTS.autoQuarantineEnabled ? 1 : 0,
      default_branch: SETTINGS_DEFAULTS.defaultBranch,
      shard_timeout_minutes: SETTINGS_DEFAULTS.shardTimeoutMinutes,
      updated_at: project.created_at,
    })
    .execute();
}

export function createProjectRepo(db: Db) {
  return {
    /** A project is always created with its settings row, in one transaction. */
    async insert(project: ProjectsTable) {
      await db.transaction().execute((trx) => insertProjectWithSettings(trx, project));
    },
    findById(id: string) {
      return db.selectFrom('projects').selectAll().where('id', '=', id).executeTakeFirst();
    },
    listIdsByTeam(teamId: string) {
      return db.selectFrom('projects').select('id').where('team_id', '=', teamId).execute();
    },
    listByTeam(teamId: string) {
      return db.selectFrom('projects').selectAll().where('team_id', '=', teamId).orderBy('id', 'desc').execute();
    },
    async update(id: string, patch: Partial<Pick<ProjectsTable, 'name' | 'updated_at'>>) {
      await db.updateTable('projects').set(patch).where('id', '=', id).execute();
    },
    async delete(id: string) {
      await deleteProjectsWithInsights(db, async (trx) => (await trx.deleteFrom('projects').where('id', '=', id).returning('id').execute()).map((r) => r.id));
    },
    findSettings(projectId: string) {
      return db.selectFrom('project_settings').selectAll().where('project_id', '=', projectId).executeTakeFirst();
    },
    async updateSettings(projectId: string, patch: Omit<Updateable<ProjectSettingsTable>, 'project_id'>) {
      await db.updateTable('project_settings').set(patch).where('project_id', '=', projectId).execute();
    },
  };
}
export type ProjectRepo = ReturnType<typeof createProjectRepo>;
