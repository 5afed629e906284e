import type { Context, MiddlewareHandler } from 'hono';
import './context.js';

/** The peer address under @hono/node-server; `local` for in-process requests (`app.request`). */
function peerAddress(c: Context): string {
  const incoming = (c.env as { incoming?: { socket?: { remoteAddress?: string } } } | undefined)?.incoming;
  return incoming?.socket?.remoteAddress ?? 'local';
}

/**
 * Stores the client address for rate limits and anonymous principals. It is the socket's peer:
 * X-Forwarded-For is not trusted, since any client can send it (behind a proxy every caller
 * shares the proxy's address; see docs/server.md).
 */
export const clientIp = (): MiddlewareHandler =>
  async function clientIp(c, next) {
    c.set('clientIp', peerAddress(c));
    await next();
  };
