import type { Context } from 'hono';
import type { JSX } from 'hono/jsx/jsx-runtime';
import { storageUrlOf, type ServerConfig } from '../config.js';
import { AppError } from '../lib/errors.js';
import type { Services } from '../services.js';
import type { NavData } from './layout.js';
import { ErrorPage } from './pages/auth.js';
import type { UserPrincipal } from './session.js';

/** Scripts and styles only from this server; files may come from {storage_url} when it is another origin. */
export function dashboardCsp(config: ServerConfig): string {
  let storage = '';
  try {
    const origin = new URL(storageUrlOf(config)).origin;
    if (config.publicUrl && origin !== new URL(config.publicUrl).origin) storage = ` ${origin}`;
  } catch {
    /* relative or unset: same origin */
  }
  return [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    `img-src 'self' data:${storage}`,
    `media-src 'self'${storage}`,
    "connect-src 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
    "base-uri 'none'",
  ].join('; ');
}

/** Sends a page with the dashboard's headers: strict CSP, no caching of signed-in content, no Referer leaks. */
export async function render(c: Context, services: Services, node: JSX.Element, status = 200) {
  c.header('Content-Security-Policy', dashboardCsp(services.deps.config));
  c.header('Cache-Control', 'no-store');
  c.header('Referrer-Policy', 'same-origin');
  c.header('X-Frame-Options', 'DENY');
  return c.html('<!doctype html>' + (await node.toString()), status as 200);
}

/** Errors of the services become HTML pages with the same status (404 for ids out of reach, as the API does). */
export async function renderError(c: Context, services: Services, err: unknown) {
  if (err instanceof AppError) {
    const message = err.status === 404 ? 'There is nothing here, or you have no access to it.' : err.message;
    for (const [k, v] of Object.entries(err.headers ?? {})) c.header(k, v);
    return render(c, services, <ErrorPage status={err.status} message={message} />, err.status);
  }
  services.deps.logger.error('dashboard page failed', err);
  return render(c, services, <ErrorPage status={500} message="The server could not show this page. Try again; if it keeps failing, see the server log." />, 500);
}

/** Teams and projects for the header; `projectId` marks the current one (and must be reachable). */
export async function loadNav(services: Services, principal: UserPrincipal, projectId: string | null, section: NavData['section']): Promise<NavData> {
  const teams = await services.teams.list(principal);
  const withProjects = await Promise.all(teams.map(async (t) => ({ ...t, projects: await services.projects.list(principal, t.id) })));
  let current: NavData['current'] = null;
  if (projectId) {
    for (const t of withProjects) {
      const project = t.projects.find((p) => p.id === projectId);
      if (project) current = { project, role: t.role };
    }
  }
  return { email: principal.email, teams: withProjects, current, section };
}
