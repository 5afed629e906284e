import type { MiddlewareHandler } from 'hono';
import type { EndpointDef } from '@testreport/contract';
import { ForbiddenError } from '../lib/errors.js';
import './context.js';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
/** What an HTML form can send across sites without a CORS preflight. */
const FORM_TYPES = ['application/x-www-form-urlencoded', 'multipart/form-data', 'text/plain'];

const originOf = (url: string): string | null => {
  try {
    return new URL(url).origin;
  } catch {
    return null;
  }
};

/**
 * CSRF rule of the API (docs/decisions.md §4) for cookie-authenticated writes: JSON bodies only, and an
 * Origin header, when present, must be {app_url}'s. API-key callers are not exposed to CSRF. Runs
 * after `authenticate` (it needs the principal).
 */
export function apiCookieWrites(def: EndpointDef, appUrl: () => string): MiddlewareHandler {
  return async function apiCookieWrites(c, next) {
    if (c.get('principal').kind === 'user' && def.method !== 'GET') check();
    await next();

    function check() {
      const origin = c.req.header('origin');
      const app = appUrl();
      if (origin && app && origin !== new URL(app).origin) throw new ForbiddenError('Cross-origin request refused');
      // Without a body there is nothing to smuggle in a form post; SameSite=Lax and Origin cover the rest.
      if (def.method === 'DELETE' || (!def.body && !def.multipart)) return;
      const type = (c.req.header('content-type') ?? '').toLowerCase();
      if (def.multipart) {
        if (!origin && !type.startsWith('multipart/form-data')) throw new ForbiddenError('Uploads need multipart/form-data');
        return;
      }
      if (!type.startsWith('application/json')) throw new ForbiddenError('Signed-in writes must be sent as application/json');
    }
  };
}

/**
 * CSRF rule of the dashboard's HTML forms (under {app_url}, outside /api/v1): a write sent as a
 * form (urlencoded, multipart or text/plain) is accepted only when its `Origin` header, or when
 * Origin is absent its `Referer`, is {app_url}'s origin. Browsers send one of them on every form
 * POST unless the page sets `Referrer-Policy: no-referrer` (then Origin is the string "null",
 * which is refused): dashboard pages must not use that policy.
 */
export function sameOriginForms(appUrl: () => string): MiddlewareHandler {
  return async function sameOriginForms(c, next) {
    const type = (c.req.header('content-type') ?? '').toLowerCase();
    if (!SAFE_METHODS.has(c.req.method) && FORM_TYPES.some((t) => type.startsWith(t))) {
      const claimed = c.req.header('origin') ?? originOf(c.req.header('referer') ?? '');
      const app = originOf(appUrl());
      if (!claimed || !app || claimed !== app) throw new ForbiddenError('Form posts are accepted only from this server’s own pages');
    }
    await next();
  };
}
