import type { IncomingMessage, Server, ServerOptions } from 'node:http';
import type { ServerConfig } from './config.js';

type Limits = Pick<ServerConfig, 'headersTimeoutMs' | 'bodyTimeoutMs' | 'requestTimeoutMs' | 'maxConnections'>;

function check(limits: Limits) {
  const { headersTimeoutMs, bodyTimeoutMs, requestTimeoutMs, maxConnections } = limits;
  for (const [name, v] of Object.entries({ headersTimeoutMs, bodyTimeoutMs, requestTimeoutMs, maxConnections })) {
    if (!Number.isInteger(v) || v < 0) throw new Error(`Server setting ${name} must be a non-negative integer, got ${v}`);
  }
  if (limits.requestTimeoutMs > 0 && limits.headersTimeoutMs > limits.requestTimeoutMs) {
    throw new Error('Server setting headersTimeoutMs must not exceed requestTimeoutMs');
  }
}

/**
 * Options for node:http(s).createServer. Node checks header and request time-outs on an interval
 * (30 s by default), so a short headersTimeout gets a matching interval to be enforced on time.
 */
export function serverOptions(limits: Limits): ServerOptions {
  check(limits);
  return {
    headersTimeout: limits.headersTimeoutMs,
    requestTimeout: limits.requestTimeoutMs,
    connectionsCheckingInterval: Math.min(30_000, Math.max(100, Math.floor(limits.headersTimeoutMs / 2) || 30_000)),
  };
}

export const hasBody = (req: IncomingMessage) => req.headers['content-length'] !== undefined && req.headers['content-length'] !== '0' || req.headers['transfer-encoding'] !== undefined;

/**
 * The connection cap, and the body time-out Node lacks: while a request body is arriving, a socket
 * that stays silent for bodyTimeoutMs is destroyed (a half-sent body used to hold its connection for
 * minutes). The idle timer runs only until the body is read or the answer is sent, so a slow
 * handler or a slow download is never cut by it.
 */
export function applyConnectionLimits(server: Server, limits: Limits) {
  if (limits.maxConnections > 0) server.maxConnections = limits.maxConnections;
  if (limits.bodyTimeoutMs === 0) return;
  server.on('request', (req: IncomingMessage, res) => {
    if (!hasBody(req)) return;
    const socket = req.socket;
    const onTimeout = () => socket.destroy();
    const done = () => {
      socket.setTimeout(0);
      socket.off('timeout', onTimeout);
    };
    socket.setTimeout(limits.bodyTimeoutMs);
    socket.on('timeout', onTimeout);
    req.once('end', done);
    res.once('finish', done);
    res.once('close', done);
  });
}
