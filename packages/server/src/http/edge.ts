import type { Hono, MiddlewareHandler } from 'hono';
import type { ServerConfig } from '../config.js';
import { maxBody } from './bodyLimits.js';
import { clientIp } from './clientIp.js';
import { sameOriginWrites } from './csrf.js';
import { API_PREFIX } from './paths.js';
import { requestId } from './requestId.js';
import { securityHeaders } from './securityHeaders.js';

/** JSON bodies above this are refused with 413; artifacts go through the streaming upload instead. */
export const MAX_JSON_BODY = 64 * 1024 * 1024;
/** Account requests are small; a big body there is an attack, not a use. */
export const MAX_AUTH_BODY = 64 * 1024;

/**
 * The middleware every request passes before its route, in this order (docs/architecture.md):
 * request id → security headers → client address → body limits → same-origin check of every write
 * outside /api/v1. Each route then adds its own stages (`router.ts`).
 */
export function mountEdge(app: Hono, config: ServerConfig) {
  const appUrl = () => config.publicUrl;
  app.use('*', requestId(), securityHeaders(appUrl), clientIp());
  // Uploads stream past the JSON limit on purpose: the route enforces each artifact type's own cap while streaming.
  app.use(`${API_PREFIX}/*`, unless((path) => path === `${API_PREFIX}/upload`, maxBody(MAX_JSON_BODY)));
  app.use('/auth/*', maxBody(MAX_AUTH_BODY));
  // /api/v1 checks cookie writes after authentication (csrf.ts apiCookieWrites): API-key callers send no Origin.
  app.use('*', unless((path) => path === API_PREFIX || path.startsWith(`${API_PREFIX}/`), sameOriginWrites(appUrl)));
}

/**
 * `mw` for every request whose path `skip` does not name: a string test where hono/combine's
 * `except()` matched each request's path with a router of its own and ran two combinators around `mw`
 * (1.7% of a one-test request's samples in a profile; the server's CPU per request moved within the
 * noise, docs/benchmarks.md).
 */
const unless =
  (skip: (path: string) => boolean, mw: MiddlewareHandler): MiddlewareHandler =>
  (c, next) =>
    skip(c.req.path) ? next() : mw(c, next);
