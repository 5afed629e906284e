import type { Hono } from 'hono';
import { INSIGHT_WINDOWS } from '@testreport/contract';
import { NotFoundError } from '../lib/errors.js';
import type { Services } from '../services.js';
import type { PageFn } from './errorRoutes.js';
import { InsightsPage } from './pages/insights.js';
import { loadNav, render, renderError } from './render.js';
import type { WebEnv } from './session.js';

/** Items per list on the page: enough to act on, short enough to read. */
const LIST_LIMIT = 20;

/** The Insights page (`GET /insights`): one window of 7, 30 or 90 days, per branch and owner. */
export function mountInsightsPages(app: Hono<WebEnv>, services: Services, page: PageFn) {
  app.get(
    '/projects/:id/insights',
    page(services, async (c) => {
      const principal = c.get('principal');
      const projectId = c.req.param('id') ?? '';
      const nav = await loadNav(services, principal, projectId, 'insights');
      // A project out of reach is "not found", as on every page (not the service's 403 for a projectId parameter).
      if (!nav.current) return renderError(c, services, new NotFoundError('Project'));
      // Any other window (a hand-edited URL) shows the default rather than an error page.
      const days = INSIGHT_WINDOWS.find((d) => String(d) === c.req.query('days')) ?? 30;
      const filters = { days: String(days), branch: c.req.query('branch')?.trim() || undefined, owner: c.req.query('owner')?.trim().slice(0, 200) || undefined };
      const [insights, branches] = await Promise.all([
        services.insights.get(principal, { projectId, days, branch: filters.branch, owner: filters.owner, limit: LIST_LIMIT }),
        services.runOverview.branches(principal, projectId),
      ]);
      // A branch typed into the URL that has no runs (yet) stays selected, so the page says what it shows.
      const offered = filters.branch && !branches.includes(filters.branch) ? [filters.branch, ...branches] : branches;
      return render(c, services, <InsightsPage nav={nav} projectId={projectId} insights={insights} branches={offered} filters={filters} />);
    }),
  );
}
