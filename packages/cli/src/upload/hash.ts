import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import type { ReportInputs } from '../report/inputs.js';

export function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

async function fileHash(file: string): Promise<{ hash: string; bytes: number }> {
  const h = createHash('sha256');
  let bytes = 0;
  for await (const chunk of createReadStream(file, { highWaterMark: 1024 * 1024 }) as AsyncIterable<Buffer>) {
    h.update(chunk);
    bytes += chunk.length;
  }
  return { hash: h.digest('hex'), bytes };
}

/**
 * One hash for the whole input, from the bytes of every file in order: re-uploading the same report
 * derives the same idempotency keys, so the server replays instead of storing twice.
 */
export async function hashInputs(inputs: ReportInputs): Promise<{ hash: string; bytes: number }> {
  const h = createHash('sha256').update(inputs.kind);
  let bytes = 0;
  for (const file of inputs.files) {
    const f = await fileHash(file);
    h.update(f.hash);
    bytes += f.bytes;
  }
  return { hash: h.digest('hex'), bytes };
}
