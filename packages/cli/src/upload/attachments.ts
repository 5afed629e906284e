import { stat } from 'node:fs/promises';
import { planArtifact, type ArtifactPlan } from '@testreport/reporter/delivery';
import type { AttachmentRef } from '../report/types.js';

async function sizeOf(path: string): Promise<number | null> {
  try {
    const info = await stat(path);
    return info.isFile() ? info.size : null;
  } catch {
    return null;
  }
}

/**
 * Decides before any request whether an attachment can go up (it exists, its type is allowed, it
 * fits), by the reporter's rule, so a report and a live run upload the same attachments.
 */
export async function planAttachment(a: AttachmentRef): Promise<ArtifactPlan> {
  return planArtifact(a, a.path ? await sizeOf(a.path) : null);
}
