import { z } from 'zod';
import { id, queryInt, timestamp } from './common.js';
import { ARTIFACT_TYPES } from './artifactRules.js';
import { snapshotPath } from './baselines.js';

export * from './artifactRules.js';

export const artifactType = z.enum(ARTIFACT_TYPES);

/** The non-file parts of the multipart body of POST /upload. */
export const uploadFields = z.object({
  type: artifactType,
  runId: id,
  projectId: id,
  testId: id.optional(),
  /** Which try of the test made the file (docs/decisions.md §13); a multipart field, so text. */
  retry: queryInt(0, 1_000).optional(),
  /** A snapshot comparison file's baseline path, relative to the Playwright project root (docs/decisions.md §13). */
  snapshotPath: snapshotPath.optional(),
});
export type UploadFields = z.input<typeof uploadFields>;

export const artifact = z.object({
  id,
  runId: id,
  testId: id.nullable(),
  /** The try of the test that made it; null when the uploader did not say. */
  retry: z.number().int().nullable(),
  type: artifactType,
  fileName: z.string(),
  fileSize: z.number().int(),
  mimeType: z.string(),
  url: z.string(),
  expiresAt: timestamp,
  createdAt: timestamp,
});
export type Artifact = z.infer<typeof artifact>;

export const artifactListQuery = z.object({ runId: id, testId: id.optional() });
export type ArtifactListQuery = z.input<typeof artifactListQuery>;
export const artifactList = z.object({ data: z.array(artifact) });
