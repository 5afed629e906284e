import { z } from 'zod';
import { id, timestamp } from './common.js';

export const ARTIFACT_TYPES = ['screenshot', 'video', 'trace', 'report'] as const;
export const artifactType = z.enum(ARTIFACT_TYPES);
export type ArtifactType = (typeof ARTIFACT_TYPES)[number];

const MB = 1024 * 1024;
/** Spec part 8: formats and caps per artifact type. Shared so the SDK refuses a doomed upload locally. */
export const ARTIFACT_RULES: Record<ArtifactType, { maxBytes: number; formats: readonly string[]; mimeTypes: readonly string[] }> = {
  screenshot: { maxBytes: 5 * MB, formats: ['png', 'jpg', 'jpeg', 'webp', 'gif'], mimeTypes: ['image/png', 'image/jpeg', 'image/webp', 'image/gif'] },
  video: { maxBytes: 100 * MB, formats: ['webm', 'mp4', 'avi', 'mov'], mimeTypes: ['video/webm', 'video/mp4', 'video/vnd.avi', 'video/x-msvideo', 'video/quicktime'] },
  trace: { maxBytes: 50 * MB, formats: ['zip'], mimeTypes: ['application/zip'] },
  report: { maxBytes: 200 * MB, formats: ['zip'], mimeTypes: ['application/zip'] },
};

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
