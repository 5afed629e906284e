import type { Readable } from 'node:stream';
import type { Hono } from 'hono';
import { ForbiddenError, NotFoundError } from '../lib/errors.js';
import type { Services } from '../services.js';
import { contentDisposition } from './fileName.js';
import { checkArtifactSignature } from './signing.js';

type ByteRange = { start: number; end: number };

/** One `bytes=` range (multi-range answers are not worth their complexity for media seeking). */
export function parseRange(header: string | undefined, size: number): ByteRange | 'unsatisfiable' | null {
  if (!header) return null;
  const m = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!m || (m[1] === '' && m[2] === '')) return null;
  if (m[1] === '') {
    const suffix = Number(m[2]);
    if (suffix === 0) return 'unsatisfiable';
    return { start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(m[1]);
  const end = m[2] === '' ? size - 1 : Math.min(Number(m[2]), size - 1);
  if (start >= size || end < start) return 'unsatisfiable';
  return { start, end };
}

/** A web stream that pulls from the file only as fast as the client reads (no read-ahead of the whole file). */
function toWebStream(node: Readable): ReadableStream<Uint8Array> {
  const it = node[Symbol.asyncIterator]();
  return new ReadableStream({
    async pull(controller) {
      const { value, done } = await it.next();
      if (done) controller.close();
      else controller.enqueue(new Uint8Array(value as Buffer));
    },
    async cancel() {
      node.destroy();
    },
  });
}

const INLINE_TYPES = new Set(['screenshot', 'video']);
/** Lifetime of the S3 URL a download redirects to (TESTREPORT_S3_REDIRECT_DOWNLOADS). */
const PRESIGNED_SECONDS = 300;

/**
 * Signed downloads on {storage_url}: `GET /storage/<artifactId>?expires=<unix>&token=<hmac>`. The bytes
 * stream through the server from whichever store holds them; with an S3 store and redirects turned on,
 * a GET is answered with a 302 to a short-lived presigned URL of the object instead.
 */
export function mountStorage(app: Hono, services: Services) {
  const { config, store } = services.deps;
  app.get('/storage/:id', async (c) => {
    const id = c.req.param('id');
    const problem = checkArtifactSignature(config, id, c.req.query('expires'), c.req.query('token'));
    if (problem === 'expired') throw new ForbiddenError('This download link has expired; list the artifacts again for a fresh one');
    if (problem) throw new ForbiddenError('This download link is not valid');
    const row = await services.artifacts.find(id);
    if (!row) throw new NotFoundError('Artifact');
    const disposition = contentDisposition(INLINE_TYPES.has(row.type) ? 'inline' : 'attachment', row.file_name);
    if (config.s3.redirectDownloads && store.presignGet && c.req.method === 'GET') {
      // The bucket serves the bytes (and any Range) itself; the presigned URL lives only long enough
      // to be followed, and never past our own link's expiry.
      const left = Number(c.req.query('expires')) - Math.floor(config.now().getTime() / 1000);
      const url = await store.presignGet(row.storage_key, { expiresInSeconds: Math.max(1, Math.min(PRESIGNED_SECONDS, left)), contentType: row.mime_type, contentDisposition: disposition });
      return c.body(null, 302, { Location: url, 'Cache-Control': 'private, max-age=0, no-store' });
    }
    const size = await store.size(row.storage_key);
    if (size === null) throw new NotFoundError('Artifact');

    const headers: Record<string, string> = {
      'Content-Type': row.mime_type,
      'X-Content-Type-Options': 'nosniff',
      'Content-Disposition': disposition,
      'Accept-Ranges': 'bytes',
      'Cache-Control': 'private, max-age=0, no-store',
      // A served file never runs script in our origin, even if a browser were tricked into rendering it.
      'Content-Security-Policy': "default-src 'none'; img-src 'self'; media-src 'self'; sandbox",
    };
    const range = parseRange(c.req.header('range'), size);
    if (range === 'unsatisfiable') return c.body(null, 416, { ...headers, 'Content-Range': `bytes */${size}` });
    if (c.req.method === 'HEAD') return c.body(null, 200, { ...headers, 'Content-Length': String(size) });
    if (range) {
      const body = toWebStream(await store.get(row.storage_key, range));
      return c.body(body, 206, { ...headers, 'Content-Range': `bytes ${range.start}-${range.end}/${size}`, 'Content-Length': String(range.end - range.start + 1) });
    }
    return c.body(toWebStream(await store.get(row.storage_key)), 200, { ...headers, 'Content-Length': String(size) });
  });
}
