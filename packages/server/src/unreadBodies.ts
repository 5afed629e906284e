import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { hasBody } from './connectionLimits.js';

/**
 * An answer sent before the request's body was read (401 before authentication reads it, 413 on
 * /auth/*, an upload refused mid-stream) says `Connection: close`. @hono/node-server drains such a
 * body for at most 500 ms and then destroys the socket; a keep-alive client that had already put
 * its next request on that connection failed with "other side closed". Told to close, it opens a
 * new connection instead. Answers to requests whose body was read keep the connection.
 */
export function closeAfterUnreadBodies(server: Server) {
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    if (!hasBody(req)) return;
    const writeHead = res.writeHead;
    res.writeHead = function (this: ServerResponse, ...args: Parameters<typeof writeHead>) {
      if (!req.readableEnded && !this.headersSent) this.setHeader('Connection', 'close');
      return writeHead.apply(this, args as never);
    } as typeof writeHead;
  });
}
