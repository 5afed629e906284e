import type { IncomingMessage } from 'node:http';
import type { Context } from 'hono';

/**
 * Request bodies read from Node's own stream under @hono/node-server (issue 30). Asking its
 * lightweight request for `body` or `text()` builds a WHATWG Request over a web stream of the
 * socket: ~10% of the server's CPU for a one-test `POST /tests`. Everything else about the body
 * (limits, UTF-8 decoding, JSON) is unchanged; `app.request()` in tests has no Node stream and
 * takes the WHATWG path as before.
 */

/** The Node request whose body nobody has started reading, or undefined (not under @hono/node-server, or already read). */
export function unreadIncoming(c: Context): IncomingMessage | undefined {
  const incoming = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming;
  // Ended without being read: a request without a body (a DELETE without Content-Length) whose end
  // was already seen; waiting for another 'end' would hang, so the WHATWG path answers ('').
  return incoming && typeof incoming.on === 'function' && !incoming.readableDidRead && !incoming.readableEnded ? incoming : undefined;
}

/** @hono/node-server gives GET, HEAD and TRACE requests no body; every other method gets the socket's stream. */
export const mayHaveBody = (method: string) => method !== 'GET' && method !== 'HEAD' && method !== 'TRACE';

/** The body as the chunks it arrived in; rejects when the client goes away mid-body. */
export function readIncomingChunks(incoming: IncomingMessage): Promise<Buffer[]> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
    incoming.once('end', () => resolve(chunks));
    incoming.once('error', reject);
    incoming.once('close', () => {
      if (!incoming.readableEnded) reject(new Error('The request body was cut off: the client closed the connection'));
    });
  });
}

/** Bodies up to this size are joined in one buffer kept for the next body. */
const SCRATCH_MAX = 8 * 1024 * 1024;
let scratch = Buffer.alloc(0);

/**
 * The chunks as one buffer, valid only until the next call: use it before any `await`. Joining
 * each batch into a fresh 400 KB buffer touched fresh pages, each first touch a page fault of
 * ~19 µs on the virtual machines measured (issue 30, docs/benchmarks.md); this buffer stays mapped.
 */
export function joinedUntilNextCall(chunks: Buffer[]): Buffer {
  if (chunks.length === 1) return chunks[0];
  let length = 0;
  for (const c of chunks) length += c.length;
  if (length > SCRATCH_MAX) return Buffer.concat(chunks, length);
  if (scratch.length < length) scratch = Buffer.allocUnsafeSlow(Math.min(SCRATCH_MAX, Math.max(length, scratch.length * 2, 1024 * 1024)));
  let at = 0;
  for (const c of chunks) at += c.copy(scratch, at);
  return scratch.subarray(0, length);
}

/** The bytes without a leading UTF-8 BOM, which the Fetch standard's "UTF-8 decode" (`Request.text()`) drops. */
export const withoutBom = (bytes: Buffer): Buffer => (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? bytes.subarray(3) : bytes);
