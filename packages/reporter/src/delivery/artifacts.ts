import { basename } from 'node:path';
import { ARTIFACT_RULES, artifactRefusal, artifactTypeOf, bodyFileName, type ArtifactType } from '@testreport/contract/core';

/** An attachment as Playwright (live or in its JSON report) describes it: a file, or a body in memory. */
export interface AttachmentInput {
  name: string;
  contentType?: string;
  path?: string;
  body?: Uint8Array;
}

const SNAPSHOT_PART = /^[^/\\]+-(?:expected|actual|diff|previous)\.[a-z0-9]+$/i;

export type ArtifactPlan =
  | { ok: true; type: ArtifactType; fileName: string; size: number; source: string | Uint8Array }
  /**
   * `unsupported`: not a screenshot, video or trace (text, logs); `bad_format`: an image or video in a
   * format the server refuses; `missing`: the file is gone; `too_large`: over the type's cap.
   */
  | { ok: false; reason: 'missing' | 'unsupported' | 'bad_format' | 'too_large'; fileName: string; detail: string };

/**
 * Decides before any request whether an attachment can go up, the same way for the reporter and for
 * `reporter upload`. `size` is the file's size, or null when it could not be read.
 */
export function planArtifact(a: AttachmentInput, size: number | null): ArtifactPlan {
  const label = a.path ?? a.name;
  if (a.path && size === null) return { ok: false, reason: 'missing', fileName: basename(a.path), detail: a.path };
  const type = artifactTypeOf({ name: a.name, contentType: a.contentType, fileName: a.path ? basename(a.path) : undefined });
  if (!type || (!a.path && !a.body)) {
    return { ok: false, reason: 'unsupported', fileName: a.path ? basename(a.path) : a.name, detail: `${label} (${a.contentType ?? 'unknown type'})` };
  }
  // A snapshot comparison's files keep Playwright's names (`box-expected.png`, `box-actual.png`,
  // `box-diff.png`): the expected one's path is the baseline itself (`box.png`), and the test page
  // groups the three by name.
  const fileName = a.path ? (SNAPSHOT_PART.test(a.name) ? a.name : basename(a.path)) : bodyFileName(a, type);
  const bytes = a.path ? (size ?? 0) : a.body!.byteLength;
  const refusal = artifactRefusal(type, fileName, bytes);
  if (refusal === 'too_large') {
    return { ok: false, reason: refusal, fileName, detail: `${a.path ?? fileName} (${bytes} bytes; ${type} limit ${ARTIFACT_RULES[type].maxBytes})` };
  }
  if (refusal) return { ok: false, reason: refusal, fileName, detail: `${a.path ?? fileName} (${a.contentType ?? 'unknown type'})` };
  return { ok: true, type, fileName, size: bytes, source: a.path ?? a.body! };
}
