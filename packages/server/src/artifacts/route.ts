import type { IncomingMessage } from 'node:http';
import { Readable } from 'node:stream';
import busboy from 'busboy';
import type { Context } from 'hono';
import { ARTIFACT_RULES, uploadFields } from '@testreport/contract';
import type { Handlers } from '../http/handler.js';
import { parseWith } from '../http/validation.js';
import { ValidationError } from '../lib/errors.js';

const MAX_FIELD_BYTES = 1024;

/** The request body as a Node stream without buffering it: the raw request under @hono/node-server. */
function bodyStream(c: Context): Readable {
  const incoming = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming;
  if (incoming && !incoming.readableDidRead) return incoming;
  if (!c.req.raw.body) throw new ValidationError('file', 'required', 'The upload has no body');
  return Readable.fromWeb(c.req.raw.body as import('node:stream/web').ReadableStream);
}

interface FilePart {
  fields: Record<string, string>;
  file: Readable;
  fileName: string | undefined;
}

/**
 * Reads multipart fields up to the first file part, then hands the file over as a stream. The fields
 * (type, runId, projectId, testId) must come before the file: that is what lets the size cap, format
 * check and authorization happen while the bytes are still arriving.
 */
function readUntilFile(c: Context, source: Readable): Promise<FilePart> {
  let parser: busboy.Busboy;
  try {
    parser = busboy({ headers: Object.fromEntries(c.req.raw.headers), limits: { files: 1, fields: 10, fieldSize: MAX_FIELD_BYTES, parts: 12 } });
  } catch {
    throw new ValidationError('body', 'invalid_type', 'Uploads are multipart/form-data with a boundary');
  }
  return new Promise((resolve, reject) => {
    const fields: Record<string, string> = {};
    let settled = false;
    const fail = (err: Error) => {
      if (settled) return;
      settled = true;
      reject(err);
    };
    parser.on('field', (name, value, info) => {
      if (info.valueTruncated) return fail(new ValidationError(name, 'too_long', `${name} is too long`));
      fields[name] = value;
    });
    parser.on('file', (name, file, info) => {
      if (settled || name !== 'file') {
        file.resume();
        return;
      }
      settled = true;
      // A copy: busboy may go on parsing fields sent after the file (already buffered) before the
      // caller runs, and those must not count as sent before it.
      resolve({ fields: { ...fields }, file, fileName: info.filename });
    });
    parser.on('error', (err) => fail(new ValidationError('body', 'invalid_value', `Malformed multipart body: ${(err as Error).message}`)));
    parser.on('close', () => fail(new ValidationError('file', 'required', 'The multipart body has no part named "file"')));
    source.on('error', fail);
    source.pipe(parser);
  });
}

/** No legitimate upload is longer than the largest cap plus its multipart framing. */
const MAX_DISCARD_BYTES = Math.max(...Object.values(ARTIFACT_RULES).map((r) => r.maxBytes)) + 1024 * 1024;

/**
 * After a refusal the rest of the body is read and dropped, so the client receives the error answer
 * instead of a reset connection; a body longer than any upload could be is cut off.
 */
function discardRest(source: Readable, file?: Readable) {
  file?.resume();
  source.unpipe();
  let dropped = 0;
  source.on('data', (chunk: Buffer) => {
    dropped += chunk.length;
    if (dropped > MAX_DISCARD_BYTES) source.destroy();
  });
  source.resume();
}

export const artifactsHandlers: Handlers<'artifacts.upload' | 'artifacts.list'> = {
  'artifacts.upload': async ({ c, principal, services }) => {
    const type = (c.req.header('content-type') ?? '').toLowerCase();
    if (!type.startsWith('multipart/form-data')) throw new ValidationError('body', 'invalid_type', 'Uploads are multipart/form-data');
    const source = bodyStream(c);
    let part: FilePart | undefined;
    try {
      part = await readUntilFile(c, source);
      const fields = parseWith(uploadFields, part.fields);
      await services.artifacts.authorizeUpload(principal, fields);
      return await services.artifacts.store(fields, part.file, part.fileName);
    } catch (err) {
      discardRest(source, part?.file);
      throw err;
    }
  },
  'artifacts.list': ({ principal, services, query }) => services.artifacts.list(principal, query),
};
