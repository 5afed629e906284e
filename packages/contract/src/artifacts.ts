import { z } from 'zod';
import { id, timestamp } from './common.js';
import { ARTIFACT_TYPES } from './artifactRules.js';

export * from './artifactRules.js';

export const artifactType = z.enum(ARTIFACT_TYPES);

/** The non-file parts of the multipart body of POST /upload. */
export const uploadFields = z.object({
  type: artifactType,
  runId: id,
  projectId: id,
  testId: id.optional(),
});
export type UploadFields = z.input<typeof uploadFields>;

export const artifact = z.object({
  id,
  runId: id,
  testId: id.nullable(),
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
