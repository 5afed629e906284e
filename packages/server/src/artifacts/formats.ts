import { fileTypeFromBuffer } from 'file-type';
import { ARTIFACT_RULES, type ArtifactType } from '@testreport/contract';

/** Enough of the head of a file for every signature we accept (MP4/MOV brands, AVI RIFF, ZIP). */
export const SNIFF_BYTES = 4100;

/**
 * Identifies a file by its magic bytes (never by its name or the client's Content-Type) and checks it
 * against the allow-list of its artifact type. Returns the detected MIME type, or null when refused.
 */
export async function detectAllowedFormat(type: ArtifactType, head: Uint8Array): Promise<{ mime: string; ext: string } | null> {
  const found = await fileTypeFromBuffer(head);
  if (!found) return null;
  const rule = ARTIFACT_RULES[type];
  if (!rule.formats.includes(found.ext) || !rule.mimeTypes.includes(found.mime)) return null;
  return { mime: found.mime, ext: found.ext };
}

export const describeFormats = (type: ArtifactType) => ARTIFACT_RULES[type].formats.map((f) => f.toUpperCase()).join(', ');
