import type { Context, Hono } from 'hono';
import { NotFoundError } from '../lib/errors.js';
import type { Services } from '../services.js';
import { sinceDayOf, windowOf } from './components/historyFilters.js';
import { daysBetween } from './components/sparkline.js';
import { pageOf } from './format.js';
import { ErrorPage, ErrorsPage } from './pages/errors.js';
import { loadNav, render, renderError } from './render.js';
import type { WebEnv } from './session.js';

type Ctx = Context<WebEnv>;
export type PageFn = (services: Services, fn: (c: Ctx) => Promise<Response>) => (c: Ctx) => Promise<Response>;

const ERRORS_PER_PAGE = 50;
/** The sparkline of each group on the list covers this many days up to today. */
const SPARK_DAYS = 30;
const DAY = 86_400_000;

/** The Errors pages: groups across runs (`GET /errors`) and one group (`GET /errors/:fingerprint`). */
export function mountErrorPages(app: Hono<WebEnv>, services: Services, page: PageFn) {
  app.get(
    '/projects/:id/errors',
    page(services, async (c) => {
      const principal = c.get('principal');
      const projectId = c.req.param('id') ?? '';
      const nav = await loadNav(services, principal, projectId, 'errors');
      if (!nav.current) return renderError(c, services, new NotFoundError('Project'));
      const days = windowOf(c.req.query('days'));
      const filters = { branch: c.req.query('branch')?.trim() || undefined, q: c.req.query('q')?.trim().slice(0, 200) || undefined, days };
      const pageNo = pageOf(c.req.query('page'));
      const now = services.deps.config.now().getTime();
      const since = sinceDayOf(days, new Date(now));
      const occurrence = { projectId, branch: filters.branch, q: filters.q, since };
      const [list, branches] = await Promise.all([
        services.errorGroups.list(principal, { ...occurrence, limit: ERRORS_PER_PAGE, offset: (pageNo - 1) * ERRORS_PER_PAGE }),
        services.runOverview.branches(principal, projectId),
      ]);
      const sparkDays = daysBetween(new Date(now - (SPARK_DAYS - 1) * DAY).toISOString().slice(0, 10), new Date(now).toISOString().slice(0, 10));
      const daily = new Map<string, Map<string, number>>();
      const series = await services.errorGroups.dailyOf({ ...occurrence, since: `${sparkDays[0]}T00:00:00.000Z` }, list.data.map((g) => g.fingerprint));
      for (const d of series) {
        if (!daily.has(d.fingerprint)) daily.set(d.fingerprint, new Map());
        daily.get(d.fingerprint)!.set(d.date, d.occurrences);
      }
      return render(c, services, <ErrorsPage nav={nav} projectId={projectId} groups={list.data} total={list.total} daily={daily} days={sparkDays} branches={branches} filters={filters} page={pageNo} pageSize={ERRORS_PER_PAGE} />);
    }),
  );

  app.get(
    '/projects/:id/errors/:fingerprint',
    page(services, async (c) => {
      const principal = c.get('principal');
      const projectId = c.req.param('id') ?? '';
      const fingerprint = c.req.param('fingerprint') ?? '';
      if (!/^[0-9a-f]{16}$/.test(fingerprint)) throw new NotFoundError('Error group');
      const nav = await loadNav(services, principal, projectId, 'errors');
      if (!nav.current) return renderError(c, services, new NotFoundError('Project'));
      const group = await services.errorGroups.get(principal, fingerprint, { projectId });
      return render(c, services, <ErrorPage nav={nav} projectId={projectId} g={group} />);
    }),
  );
}
