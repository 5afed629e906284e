import type { Context, MiddlewareHandler } from 'hono';
import type { EndpointDef } from '@testreport/contract';
import { ForbiddenError } from '../lib/errors.js';
import './context.js';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

const originOf = (url: string): string | null => {
  try {
    return new URL(url).origin;
  } catch {
    return null;
  }
};

/** The media type without parameters, lower case ('' when absent). */
const mediaType = (c: Context) => (c.req.header('content-type') ?? '').split(';')[0]!.trim().toLowerCase();

/**
 * True when no page of another origin could have sent this request without a CORS preflight, which
 * this server never grants: a method other than POST (forms and preflight-free fetches only GET and
 * POST), a JSON body, or an Idempotency-Key header (not CORS-safelisted; the SDK sends it on every
 * POST, uploads included). A POST without any of these — no Content-Type, a form type, text/plain —
 * is exactly what `<form>` and `fetch(…, {mode: 'no-cors'})` send from anywhere.
 */
function needsPreflight(c: Context): boolean {
  return c.req.method !== 'POST' || mediaType(c) === 'application/json' || c.req.header('idempotency-key') !== undefined;
}

/**
 * The one same-origin rule for writes (docs/architecture.md, CSRF): the `Origin` header must be
 * {app_url}'s origin; without Origin, the `Referer`'s origin must be; with neither (non-browser
 * clients, old browsers on no-referrer pages) only a request that needs a preflight is accepted.
 * `Origin: null` (no-referrer pages, sandboxed frames) is a foreign origin. "Same origin" is always
 * {app_url}'s (TESTREPORT_PUBLIC_URL), never the Host header, which a proxy may rewrite.
 */
export function assertSameOrigin(c: Context, appUrl: string): void {
  if (SAFE_METHODS.has(c.req.method)) return;
  const app = originOf(appUrl);
  const origin = c.req.header('origin');
  const referer = c.req.header('referer');
  if (origin !== undefined || referer !== undefined) {
    const claimed = origin ?? originOf(referer!);
    if (!app || claimed !== app) throw new ForbiddenError('Cross-origin request refused: changes are accepted only from this server’s own pages');
    return;
  }
  if (!needsPreflight(c)) throw new ForbiddenError('Request refused: a change sent without Origin or Referer must be JSON or carry an Idempotency-Key');
}

/**
 * Everything outside /api/v1 (dashboard forms, /auth/*): every write passes `assertSameOrigin`,
 * with or without a session cookie, so a page elsewhere can neither act as the signed-in user nor
 * sign the browser in to another account. Mounted by `edge.ts` before any route.
 */
export function sameOriginWrites(appUrl: () => string): MiddlewareHandler {
  return async function sameOriginWrites(c, next) {
    assertSameOrigin(c, appUrl());
    await next();
  };
}

/**
 * The API's rule (runs after `authenticate`, it needs the principal). A write authenticated by the
 * session cookie passes `assertSameOrigin` and must be JSON (uploads: multipart/form-data).
 * Account endpoints (`/auth/*`, among them the cookie-setting `POST /auth/login`) take JSON only,
 * whoever calls. API-key callers hold no ambient credential: nothing to check.
 */
export function apiCookieWrites(def: EndpointDef, appUrl: () => string): MiddlewareHandler {
  return async function apiCookieWrites(c, next) {
    if (!SAFE_METHODS.has(def.method)) check();
    await next();

    function check() {
      const byCookie = c.get('principal').kind === 'user';
      if (byCookie) assertSameOrigin(c, appUrl());
      if (!def.body && !def.multipart) return;
      const type = mediaType(c);
      if (def.multipart) {
        if (byCookie && type !== 'multipart/form-data') throw new ForbiddenError('Uploads need multipart/form-data');
        return;
      }
      if (type === 'application/json') return;
      if (byCookie) throw new ForbiddenError('Signed-in writes must be sent as application/json');
      if (def.base === 'app') throw new ForbiddenError('Account requests must be sent as application/json');
    }
  };
}
