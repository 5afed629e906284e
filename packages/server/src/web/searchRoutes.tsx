import type { Hono } from 'hono';
import { SEARCH_FIELDS, SEARCH_MIN_CHARS, type SearchField } from '@testreport/contract';
import { NotFoundError } from '../lib/errors.js';
import type { Services } from '../services.js';
import { sinceOf, windowOf } from './components/historyFilters.js';
import type { PageFn } from './errorRoutes.js';
import { pageOf } from './format.js';
import { SearchPage, type SearchFilters } from './pages/search.js';
import { loadNav, render, renderError } from './render.js';
import type { WebEnv } from './session.js';

const RESULTS_PER_PAGE = 25;

/** The search page behind the header's search box (`GET /search`, docs/insights.md "Search"). */
export function mountSearchPages(app: Hono<WebEnv>, services: Services, page: PageFn) {
  app.get(
    '/projects/:id/search',
    page(services, async (c) => {
      const principal = c.get('principal');
      const projectId = c.req.param('id') ?? '';
      const nav = await loadNav(services, principal, projectId, null);
      if (!nav.current) return renderError(c, services, new NotFoundError('Project'));
      const field = c.req.query('in');
      const days = windowOf(c.req.query('days'));
      const filters: SearchFilters = {
        // The API refuses NUL (no stored text holds one); the page just drops it.
        q: (c.req.query('q') ?? '').replace(/\u0000/g, '').trim().slice(0, 200),
        in: (SEARCH_FIELDS as readonly string[]).includes(field ?? '') ? (field as SearchField) : undefined,
        branch: c.req.query('branch')?.trim() || undefined,
        days,
      };
      const pageNo = pageOf(c.req.query('page'));
      const branches = await services.runOverview.branches(principal, projectId);
      const props = { nav, projectId, filters, branches, page: pageNo, pageSize: RESULTS_PER_PAGE };
      // The form asks for the length too; a hand-made URL gets the rule instead of an error page.
      if (filters.q.length < SEARCH_MIN_CHARS) {
        const problem = filters.q ? `Search for at least ${SEARCH_MIN_CHARS} characters.` : 'Type what to look for.';
        return render(c, services, <SearchPage {...props} problem={problem} hits={[]} total={0} />);
      }
      const since = sinceOf(days, services.deps.config.now());
      const res = await services.search.search(principal, {
        projectId, q: filters.q, in: filters.in ? [filters.in] : [...SEARCH_FIELDS], branch: filters.branch, since,
        limit: RESULTS_PER_PAGE, offset: (pageNo - 1) * RESULTS_PER_PAGE,
      });
      return render(c, services, <SearchPage {...props} hits={res.data} total={res.total} />);
    }),
  );
}
