import type { Context, Hono } from 'hono';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import { setSessionCookie } from '../accounts/cookie.js';
import type { ServerConfig } from '../config.js';
import { AppError } from '../lib/errors.js';
import type { Services } from '../services.js';
import { limitAuth } from '../web/authRoutes.js';
import { SignInRefusedPage } from '../web/pages/auth.js';
import { render, renderError } from '../web/render.js';
import { safeNext } from '../web/session.js';
import { SIGN_IN_TTL_MS, SignInRefused, type SsoService } from './service.js';

/** Holds the `state` of the sign-in this browser started; the callback must come back with the same one. */
const STATE_COOKIE = 'testreport_oidc';
const cookieAttributes = (config: ServerConfig) =>
  ({ httpOnly: true, sameSite: 'Lax', path: '/auth/oidc', secure: config.publicUrl.startsWith('https://') }) as const;

/**
 * `/auth/oidc/start` (a link on the sign-in page, `?next=` kept) and `/auth/oidc/callback`, where the
 * provider sends the browser back. SameSite=Lax lets the state cookie ride on that top-level GET.
 */
export function mountSsoPages(app: Hono, services: Services) {
  const sso = services.sso;
  if (!sso) return;
  const { config, logger } = services.deps;

  app.get('/auth/oidc/start', async (c) => {
    try {
      limitAuth(c, services);
      const { state, url } = await sso.start(safeNext(c.req.query('next')));
      setCookie(c, STATE_COOKIE, state, { ...cookieAttributes(config), maxAge: SIGN_IN_TTL_MS / 1000 });
      return c.redirect(url.href, 302);
    } catch (err) {
      if (!(err instanceof AppError)) {
        logger.error('sso: could not reach the identity provider', err);
        return refused(c, services, sso, `${sso.name} cannot be reached right now, so sign-in cannot start. Try again in a minute; if it keeps happening, tell an administrator.`, 503);
      }
      return renderError(c, services, err);
    }
  });

  app.get('/auth/oidc/callback', async (c) => {
    const browserState = getCookie(c, STATE_COOKIE);
    deleteCookie(c, STATE_COOKIE, cookieAttributes(config));
    try {
      // Rebuilt on {app_url}: behind a TLS proxy the request's own URL names the inner address, and
      // openid-client sends this URL's origin and path as the redirect_uri the provider compares.
      const callbackUrl = new URL(`${config.publicUrl}/auth/oidc/callback`);
      callbackUrl.search = new URL(c.req.url).search;
      const { userId, next } = await sso.finish(callbackUrl, browserState);
      const session = await services.sessions.create(userId);
      setSessionCookie(c, config, session.token);
      return c.redirect(next, 303);
    } catch (err) {
      if (err instanceof SignInRefused) return refused(c, services, sso, err.message, err.status);
      logger.error('sso: sign-in failed', err);
      return renderError(c, services, err);
    }
  });
}

async function refused(c: Context, services: Services, sso: SsoService, message: string, status: number) {
  const res = await render(c, services, <SignInRefusedPage name={sso.name} message={message} />, status);
  // The callback URL holds the one-time code: it must not leave in a Referer.
  res.headers.set('Referrer-Policy', 'no-referrer');
  return res;
}
