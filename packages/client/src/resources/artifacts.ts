import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { basename, extname } from 'node:path';
import type { Readable } from 'node:stream';
import type { QueryOf } from '@testreport/contract';
import type { Artifact, ArtifactType } from '@testreport/contract';
import { ARTIFACT_RULES } from '@testreport/contract/core';
import { PayloadTooLargeError } from '../core/errors.js';
import { buildMultipart, type MultipartFile } from '../core/multipart.js';
import type { RequestOptions } from '../core/requestOptions.js';
import { APIResource } from '../core/resource.js';

export interface UploadInput {
  /**
   * A file path (streamed from disk, size checked first, retried on transient failures), a Buffer,
   * or a stream (sent once: a stream cannot be replayed, so it is not retried).
   */
  file: string | Uint8Array | Readable | AsyncIterable<Uint8Array>;
  /** Default: the path's base name, else `<type>.<usual extension>`. */
  fileName?: string;
  /** Default: from the file name's extension. */
  contentType?: string;
  type: ArtifactType;
  runId: string;
  projectId: string;
  testId?: string;
  /** The try of the test that made the file (Playwright's `retry`, 0 for the first). */
  retry?: number;
  /** For a snapshot comparison's file: its baseline's path relative to the Playwright project root. */
  snapshotPath?: string;
}

const MIME_BY_EXT: Record<string, string> = {
  png: 'image/png', jpg: 'image/jpeg', jpeg: 'image/jpeg', webp: 'image/webp', gif: 'image/gif',
  webm: 'video/webm', mp4: 'video/mp4', avi: 'video/x-msvideo', mov: 'video/quicktime', zip: 'application/zip',
};

const mib = (bytes: number) => `${(bytes / (1024 * 1024)).toFixed(bytes < 1024 * 1024 ? 2 : 1)} MiB`;

function tooLarge(fileName: string, type: ArtifactType, size: number | undefined, maxBytes: number): PayloadTooLargeError {
  return new PayloadTooLargeError({
    status: 413,
    code: 'PAYLOAD_TOO_LARGE',
    message: `${fileName} is ${size === undefined ? 'larger than allowed' : mib(size)}; ${type} artifacts may be at most ${mib(maxBytes)} (checked before upload)`,
    details: { field: 'file', reason: 'too_long', maxBytes, ...(size === undefined ? {} : { size }) },
  });
}

/** Passes a one-shot stream through, giving up (and saying why) once it outgrows the type's cap. */
async function* capped(source: AsyncIterable<Uint8Array>, maxBytes: number, onTooLarge: () => Error): AsyncGenerator<Uint8Array> {
  let seen = 0;
  for await (const chunk of source) {
    seen += chunk.byteLength;
    if (seen > maxBytes) throw onTooLarge();
    yield chunk;
  }
}

export class Artifacts extends APIResource {
  /**
   * Uploads a screenshot, video, trace or report as multipart/form-data, streaming the file. A path
   * or Buffer over the type's size cap is refused locally with PayloadTooLargeError, no request made.
   */
  async upload(input: UploadInput, opts?: RequestOptions): Promise<Artifact> {
    const rule = ARTIFACT_RULES[input.type];
    const source = input.file;
    const fileName = input.fileName ?? (typeof source === 'string' ? basename(source) : `${input.type}.${rule?.formats[0] ?? 'bin'}`);
    const contentType = input.contentType ?? MIME_BY_EXT[extname(fileName).slice(1).toLowerCase()] ?? rule?.mimeTypes[0] ?? 'application/octet-stream';
    const bodyFailure: { error?: Error } = {};

    let file: MultipartFile;
    let replayable = true;
    if (typeof source === 'string') {
      const info = await stat(source);
      if (!info.isFile()) throw new TypeError(`${source} is not a file`);
      if (rule && info.size > rule.maxBytes) throw tooLarge(fileName, input.type, info.size, rule.maxBytes);
      file = { fileName, contentType, size: info.size, open: () => createReadStream(source, { highWaterMark: 256 * 1024 }) };
    } else if (source instanceof Uint8Array) {
      if (rule && source.byteLength > rule.maxBytes) throw tooLarge(fileName, input.type, source.byteLength, rule.maxBytes);
      file = { fileName, contentType, size: source.byteLength, open: async function* () { yield source; } };
    } else {
      replayable = false;
      const stream = rule
        ? capped(source, rule.maxBytes, () => (bodyFailure.error = tooLarge(fileName, input.type, undefined, rule.maxBytes)))
        : source;
      file = { fileName, contentType, open: () => stream };
    }

    const fields: Array<[string, string]> = [
      ['type', input.type],
      ['runId', input.runId],
      ['projectId', input.projectId],
    ];
    if (input.testId) fields.push(['testId', input.testId]);
    if (input.retry !== undefined) fields.push(['retry', String(input.retry)]);
    if (input.snapshotPath !== undefined) fields.push(['snapshotPath', input.snapshotPath]);
    const res = await this.client.call(
      'artifacts.upload',
      { multipart: buildMultipart(fields, 'file', file), replayable, bodyFailure, timeoutMs: this.client.uploadTimeoutMs },
      opts,
    );
    return res.data;
  }

  /** Artifacts of a run (or of one test) with fresh signed download URLs. */
  list(query: QueryOf<'artifacts.list'>, opts?: RequestOptions) {
    return this.client.request('artifacts.list', { query }, opts);
  }
}
