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

// The Fetch standard's "UTF-8 decode" that Request.text() applies: a leading BOM dropped, malformed bytes replaced.
const utf8 = new TextDecoder('utf-8');

/** The whole body as text, as `Request.text()` gives it; rejects when the client goes away mid-body. */
export function readIncomingText(incoming: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
    incoming.once('end', () => resolve(utf8.decode(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks))));
    incoming.once('error', reject);
    incoming.once('close', () => {
      if (!incoming.readableEnded) reject(new Error('The request body was cut off: the client closed the connection'));
    });
  });
}
