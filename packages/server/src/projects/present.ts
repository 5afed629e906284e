import type { Project, ProjectSettings } from '@testreport/contract';
import type { ProjectSettingsTable, ProjectsTable } from '../db/schema.js';
import { bool } from '../db/values.js';
import type { Selectable } from 'kysely';

export const toProject = (r: ProjectsTable): Project => ({ id: r.id, name: r.name, teamId: r.team_id, createdAt: r.created_at, updatedAt: r.updated_at });
export const toSettings = (r: Selectable<ProjectSettingsTable>): ProjectSettings => ({
  projectId: r.project_id,
  dataRetentionDays: r.data_retention_days,
  flakinessThreshold: r.flakiness_threshold,
  autoQuarantineEnabled: bool(r.auto_quarantine_enabled),
  defaultBranch: r.default_branch,
  shardTimeoutMinutes: r.shard_timeout_minutes,
  autoQuarantineMinRuns: r.auto_quarantine_min_runs,
  autoReleaseAfterPasses: r.auto_release_after_passes,
  updatedAt: r.updated_at,
});
