import { z } from 'zod';
import { id, name, successResponse, timestamp } from './common.js';

export const project = z.object({ id, name: z.string(), teamId: id, createdAt: timestamp, updatedAt: timestamp });
export type Project = z.infer<typeof project>;
export const projectListQuery = z.object({ teamId: id });
export const projectList = z.object({ data: z.array(project) });
export const projectCreate = z.object({ name, teamId: id });
export type ProjectCreate = z.input<typeof projectCreate>;

/** Decisions §4: defaults and bounds. */
export const SETTINGS_DEFAULTS = { dataRetentionDays: 30, flakinessThreshold: 0.3, autoQuarantineEnabled: false, defaultBranch: 'main', shardTimeoutMinutes: 30, autoQuarantineMinRuns: 5, autoReleaseAfterPasses: 0 } as const;
export const settingsFields = {
  dataRetentionDays: z.number().int().min(1).max(3650),
  flakinessThreshold: z.number().min(0).max(1),
  autoQuarantineEnabled: z.boolean(),
  /** The branch run summaries compare with by default ("new failures" are new against its last run). */
  defaultBranch: z.string().trim().min(1).max(255),
  /** A CI-build run with no activity for this long finishes with the shards it has. */
  shardTimeoutMinutes: z.number().int().min(1).max(1440),
  /** Auto-quarantine trusts a score only over this many results; this many failures in a row on the default branch = broken. */
  autoQuarantineMinRuns: z.number().int().min(2).max(50),
  /** A quarantined test is released after this many clean passes in a row on the default branch; 0 = never by itself. */
  autoReleaseAfterPasses: z.number().int().min(0).max(50),
};
export const settingsUpdate = z.object({
  dataRetentionDays: settingsFields.dataRetentionDays.optional(),
  flakinessThreshold: settingsFields.flakinessThreshold.optional(),
  autoQuarantineEnabled: settingsFields.autoQuarantineEnabled.optional(),
  defaultBranch: settingsFields.defaultBranch.optional(),
  shardTimeoutMinutes: settingsFields.shardTimeoutMinutes.optional(),
  autoQuarantineMinRuns: settingsFields.autoQuarantineMinRuns.optional(),
  autoReleaseAfterPasses: settingsFields.autoReleaseAfterPasses.optional(),
});
export type SettingsUpdate = z.input<typeof settingsUpdate>;
export const settings = z.object({ projectId: id, ...settingsFields, updatedAt: timestamp });
export type ProjectSettings = z.infer<typeof settings>;

export const projectUpdate = settingsUpdate.extend({ name: name.optional() });
export type ProjectUpdate = z.input<typeof projectUpdate>;
export const projectUpdated = project.pick({ id: true, name: true, teamId: true, updatedAt: true });
export const projectDeleted = successResponse;
