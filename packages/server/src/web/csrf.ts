import type { MiddlewareHandler } from 'hono';
import { ForbiddenError } from '../lib/errors.js';

/**
 * The dashboard's form posts are accepted only from {app_url}'s own pages: `Origin` (or, when a
 * browser sends none, `Referer`) must be its origin. Local stand-in for the shared `http/csrf.ts`
 * middleware (branch `edge`); same rule, so the lead can swap one for the other.
 */
export function webSameOrigin(appUrl: () => string): MiddlewareHandler {
  return async (c, next) => {
    if (c.req.method === 'GET' || c.req.method === 'HEAD') return next();
    const expected = new URL(appUrl() || c.req.url).origin;
    const origin = c.req.header('origin');
    const referer = c.req.header('referer');
    let from: string | null = null;
    if (origin && origin !== 'null') from = origin;
    else if (referer) {
      try {
        from = new URL(referer).origin;
      } catch {
        from = null;
      }
    }
    if (from !== expected) throw new ForbiddenError('Cross-origin form post refused');
    await next();
  };
}
