import { stat } from 'node:fs/promises';
import { extname } from 'node:path';
import { ARTIFACT_RULES, type ArtifactType } from '@testreport/contract';
import type { AttachmentRef } from '../report/types.js';

export type AttachmentPlan =
  | { ok: true; type: ArtifactType; size: number }
  | { ok: false; reason: 'missing' | 'too_large' | 'unsupported'; detail: string };

/** The artifact type a Playwright attachment maps to, by content type, then extension, then name. */
export function artifactTypeOf(a: AttachmentRef): ArtifactType | undefined {
  const ext = extname(a.path).slice(1).toLowerCase();
  for (const type of ['screenshot', 'video'] as const) {
    if (ARTIFACT_RULES[type].formats.includes(ext) || (a.contentType && ARTIFACT_RULES[type].mimeTypes.includes(a.contentType))) return type;
  }
  if (ext === 'zip' || a.contentType === 'application/zip') return a.name === 'report' ? 'report' : 'trace';
  return undefined;
}

/** Decides before any request whether an attachment can go up (it exists, its type is allowed, it fits). */
export async function planAttachment(a: AttachmentRef): Promise<AttachmentPlan> {
  const type = artifactTypeOf(a);
  let size: number;
  try {
    const info = await stat(a.path);
    if (!info.isFile()) return { ok: false, reason: 'missing', detail: `${a.path} is not a file` };
    size = info.size;
  } catch {
    return { ok: false, reason: 'missing', detail: a.path };
  }
  if (!type) return { ok: false, reason: 'unsupported', detail: `${a.path} (${a.contentType ?? 'unknown type'})` };
  const max = ARTIFACT_RULES[type].maxBytes;
  if (size > max) return { ok: false, reason: 'too_large', detail: `${a.path} (${size} bytes; ${type} limit ${max})` };
  return { ok: true, type, size };
}
