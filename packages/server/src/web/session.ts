import type { Context, MiddlewareHandler } from 'hono';
import { getCookie } from 'hono/cookie';
import { SESSION_COOKIE } from '../accounts/sessions.js';
import type { Principal } from '../authz/principal.js';
import { EmailNotVerifiedError, UnauthorizedError } from '../lib/errors.js';
import type { Services } from '../services.js';

export type UserPrincipal = Extract<Principal, { kind: 'user' }>;
export type WebEnv = { Variables: { principal: UserPrincipal } };

const PROBE = 'http://next.invalid';

/**
 * Only a path on this server may be a post-sign-in target: no open redirect, no header injection.
 * Browsers drop tabs and line breaks from a URL and read `\` as `/`, so `/\t/evil.example` would
 * become `//evil.example`: any control character or backslash sends the user to `/` instead, and
 * what is left must resolve, against an origin, to that same origin. The answer is the URL's own
 * serialisation (non-ASCII percent-encoded), so it is always a valid Location header.
 */
export function safeNext(next: string | undefined | null): string {
  if (!next || !next.startsWith('/') || /[\u0000-\u001f\u007f-\u009f\\]/.test(next)) return '/';
  let url: URL;
  try {
    url = new URL(next, PROBE);
  } catch {
    return '/';
  }
  if (url.origin !== PROBE) return '/';
  return url.pathname + url.search + url.hash;
}

export const signInUrl = (next: string) => (next === '/' ? '/' : `/?next=${encodeURIComponent(next)}`);

/** The signed-in user of a request, or null (expired, unknown or absent cookie). Unverified users are let through to a notice. */
export async function userOf(c: Context, services: Services): Promise<UserPrincipal | 'unverified' | null> {
  const token = getCookie(c, SESSION_COOKIE);
  if (!token) return null;
  try {
    return await services.sessions.authenticate(token);
  } catch (err) {
    if (err instanceof EmailNotVerifiedError) return 'unverified';
    if (err instanceof UnauthorizedError) return null;
    throw err;
  }
}

/**
 * Dashboard pages need a session: signed out, the browser goes to sign-in and comes back to the
 * same URL afterwards (`?next=` carries path and query).
 */
export function requireUser(services: Services, unverifiedPage: (c: Context) => Response | Promise<Response>): MiddlewareHandler<WebEnv> {
  return async (c, next) => {
    const user = await userOf(c, services);
    if (user === 'unverified') return unverifiedPage(c);
    if (!user) {
      const url = new URL(c.req.url);
      return c.redirect(signInUrl(url.pathname + url.search), 302);
    }
    c.set('principal', user);
    await next();
  };
}
