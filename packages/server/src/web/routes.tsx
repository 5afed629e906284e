import { notFound } from '../http/notFound.js';
import type { Context, Hono } from 'hono';
import { compress } from 'hono/compress';
import { storageUrlOf } from '../config.js';
import { API_PREFIX } from '../http/paths.js';
import type { Services } from '../services.js';
import { mountAssets } from './assets.js';
import { mountAuthPages, signInMethods } from './authRoutes.js';
import { mountSsoPages } from '../sso/route.js';
import { mountProjectPages } from './pageRoutes.js';
import { ErrorPage, SignInPage, UnverifiedPage } from './pages/auth.js';
import { MailLinkPage } from './pages/mailLinks.js';
import { render, renderError } from './render.js';
import { mountSettingsPages } from './settingsRoutes.js';
import { requireUser, safeNext, userOf, type WebEnv } from './session.js';
import { mountTraceViewer } from './trace.js';

/** Paths that answer JSON (the API, account endpoints, signed downloads); everything else is the dashboard. */
const JSON_PREFIXES = [`${API_PREFIX}/`, '/auth/', '/storage/'];
const SIGNED_IN = ['/projects/*', '/runs/*', '/tests/*', '/switch'];

/** The browser dashboard: one call from app.ts. */
export function mountDashboard(app: Hono, services: Services) {
  const { config } = services.deps;
  const web = app as unknown as Hono<WebEnv>;
  for (const p of ['/', '/projects/*', '/runs/*', '/tests/*', '/assets/*', '/trace/*']) app.use(p, compress());
  // Every write is checked for a same-origin Origin/Referer by the edge (http/csrf.ts sameOriginWrites).
  const unverified = (c: Context) => render(c, services, <UnverifiedPage />, 403);
  for (const p of SIGNED_IN) web.use(p, requireUser(services, unverified));

  mountAssets(app);
  mountTraceViewer(app, () => {
    const storage = new URL(storageUrlOf(config), config.publicUrl || 'http://localhost').origin;
    return config.publicUrl && storage === new URL(config.publicUrl).origin ? '' : ` ${storage}`;
  });
  mountAuthPages(app, services);
  mountSsoPages(app, services);
  // The mailed links carry a token in the URL: no Referer may ever leave these pages.
  for (const [path, flow] of [['/verify-email', 'verify'], ['/reset-password', 'reset'], ['/accept-invitation', 'accept']] as const) {
    app.get(path, async (c) => {
      const res = await render(c, services, <MailLinkPage flow={flow} />);
      res.headers.set('Referrer-Policy', 'no-referrer');
      return res;
    });
  }
  const home = mountProjectPages(web, services);
  mountSettingsPages(web, services);

  app.get('/', async (c) => {
    try {
      const user = await userOf(c, services);
      if (user === 'unverified') return unverified(c);
      if (!user) return render(c, services, <SignInPage next={safeNext(c.req.query('next'))} methods={signInMethods(services)} />);
      // Already signed in (another tab, the back button): go straight where the link pointed.
      if (c.req.query('next')) return c.redirect(safeNext(c.req.query('next')), 302);
      (c as unknown as Context<WebEnv>).set('principal', user);
      return await home(c as unknown as Context<WebEnv>);
    } catch (err) {
      return renderError(c, services, err);
    }
  });
}

/** Unknown paths: the API's JSON 404 (through the one error handler) under the API, an HTML page everywhere else. */
export function pageOrApiNotFound(services: Services) {
  return (c: Context) => {
    if (JSON_PREFIXES.some((p) => c.req.path.startsWith(p)) || c.req.path === API_PREFIX) return notFound(c);
    return render(c, services, <ErrorPage status={404} message={`There is no page at ${c.req.path}.`} />, 404);
  };
}
