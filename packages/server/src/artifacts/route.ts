import type { IncomingMessage } from 'node:http';
import { Readable } from 'node:stream';
import busboy from 'busboy';
import type { Context } from 'hono';
import { ARTIFACT_RULES, uploadFields, type Artifact } from '@testreport/contract';
import { principalScope } from '../authz/principal.js';
import type { ArtifactsTable } from '../db/schema.js';
import { reply, type Handlers } from '../http/handler.js';
import { parseWith } from '../http/validation.js';
import { AppError, ValidationError } from '../lib/errors.js';

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
  /** Set when the multipart framing broke after the file was handed over (e.g. no closing boundary). */
  framingError(): Error | undefined;
}

/**
 * Reads multipart fields up to the first file part, then hands the file over as a stream. The fields
 * (type, runId, projectId, testId) must come before the file: that is what lets the size cap, format
 * check and authorization happen while the bytes are still arriving.
 */
function readUntilFile(c: Context, source: Readable): Promise<FilePart> {
  let parser: busboy.Busboy;
  try {
    // File names are UTF-8 as browsers, curl and undici send them (busboy reads Latin-1 by default:
    // café.png became cafÃ©.png); an RFC 5987 `filename*=UTF-8''…` wins over `filename` when given.
    parser = busboy({ headers: Object.fromEntries(c.req.raw.headers), defParamCharset: 'utf8', limits: { files: 1, fields: 10, fieldSize: MAX_FIELD_BYTES, parts: 12 } });
  } catch {
    throw new ValidationError('body', 'invalid_type', 'Uploads are multipart/form-data with a boundary');
  }
  return new Promise((resolve, reject) => {
    const fields: Record<string, string> = {};
    let settled = false;
    let framingError: Error | undefined;
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
      file.on('error', (err: Error) => (framingError ??= err));
      // A copy: busboy may go on parsing fields sent after the file (already buffered) before the
      // caller runs, and those must not count as sent before it.
      resolve({ fields: { ...fields }, file, fileName: info.filename, framingError: () => framingError });
    });
    parser.on('error', (err) => {
      framingError ??= err as Error;
      fail(new ValidationError('body', 'invalid_value', `Malformed multipart body: ${(err as Error).message}`));
    });
    parser.on('close', () => fail(new ValidationError('file', 'required', 'The multipart body has no part named "file"')));
    source.on('error', fail);
    source.on('close', () => {
      if (!source.readableEnded) fail(clientGone());
    });
    source.pipe(parser);
  });
}

const clientGone = () => new ValidationError('file', 'invalid_value', 'The client closed the connection before the upload finished');

/**
 * A client that disconnects mid-file never ends the part stream (the request errors, the parser is
 * just left waiting), so the store would keep its temp file and descriptor open forever (15.3):
 * fail the part instead, which removes the temp file.
 */
function failFileWhenClientLeaves(source: Readable, file: Readable) {
  const check = () => {
    if (!source.readableEnded && !file.destroyed) file.destroy(clientGone());
  };
  if (source.destroyed) check();
  else source.once('close', check);
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
    let received: ArtifactsTable | undefined;
    try {
      part = await readUntilFile(c, source);
      failFileWhenClientLeaves(source, part.file);
      const fields = parseWith(uploadFields, part.fields);
      await services.artifacts.authorizeUpload(principal, fields);
      const row = (received = await services.artifacts.receive(fields, part.file, part.fileName));
      // The file cannot be part of a transaction: it is stored first, then its row and the stored
      // Idempotency-Key response commit together. A crash in between leaves a file no row names,
      // which the start-up sweep removes (docs/server.md).
      const commit = async () => ({ status: 201, body: JSON.stringify(await services.artifacts.commit(row)) });
      const key = c.req.header('idempotency-key');
      const out = key
        ? await services.idempotency.run(
            { scope: principalScope(principal), key, method: 'POST', path: c.req.path, bodyHash: services.idempotency.bodyHash(services.artifacts.digest(row)) },
            commit,
          )
        : { ...(await commit()), replayed: false };
      if (out.replayed) {
        await services.artifacts.discard(row);
        c.header('Idempotent-Replayed', 'true');
      }
      return reply(out.status as 201, JSON.parse(out.body) as Artifact);
    } catch (err) {
      // No row names the received file (refused key, deleted run): remove it.
      if (received) await services.artifacts.discard(received).catch(() => {});
      discardRest(source, part?.file);
      // A body cut short fails inside the store as a plain stream error: it is the client's input.
      const framing = part?.framingError();
      if (framing && !(err instanceof AppError)) throw new ValidationError('body', 'invalid_value', `Malformed multipart body: ${framing.message}`);
      throw err;
    }
  },
  'artifacts.list': ({ principal, services, query }) => services.artifacts.list(principal, query),
};
