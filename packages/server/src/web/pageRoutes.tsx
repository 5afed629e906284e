import type { Context, Hono } from 'hono';
import { getCookie, setCookie } from 'hono/cookie';
import { COMPARE_LIMITS, LIMITS } from '@testreport/contract';
import { roleAllows } from '../authz/policy.js';
import { NotFoundError } from '../lib/errors.js';
import type { Services } from '../services.js';
import { formFields, LAST_PROJECT_COOKIE } from './authRoutes.js';
import { pageOf } from './format.js';
import { Layout, type NavData } from './layout.js';
import { ComparePage, ComparePickPage } from './pages/compare.js';
import { mountErrorPages } from './errorRoutes.js';
import { mountInsightsPages } from './insightsRoutes.js';
import { mountSearchPages } from './searchRoutes.js';
import { mountVisualPages } from './visualRoutes.js';
import { FlakyPage } from './pages/flaky.js';
import { RunPage } from './pages/run.js';
import { RunsPage } from './pages/runs.js';
import { defaultTry, TestPage, triesOf } from './pages/test.js';
import { loadNav, render, renderError } from './render.js';
import { safeNext, type WebEnv } from './session.js';

const RUNS_PER_PAGE = 50;
const TESTS_PER_PAGE = 200;
const FLAKY_PER_PAGE = 50;

const oneOf = (v: string | undefined, allowed: string[]) => (v && allowed.includes(v) ? v : undefined);
const text = (v: string | undefined) => (v ? v.trim().slice(0, 200) || undefined : undefined);

type Ctx = Context<WebEnv>;
const param = (c: Ctx) => c.req.param('id') ?? '';
/** Runs a page handler; service errors (404 out of reach, 403 role) become HTML error pages. */
const page = (services: Services, fn: (c: Ctx) => Promise<Response>) => async (c: Ctx) => {
  try {
    return await fn(c);
  } catch (err) {
    return renderError(c, services, err);
  }
};

/** `{app_url}` is on http://localhost or https: the trace viewer's service worker can run there. */
function isSecureContext(c: Ctx, services: Services) {
  const url = new URL(services.deps.config.publicUrl || c.req.url);
  return url.protocol === 'https:' || ['localhost', '127.0.0.1', '[::1]'].includes(url.hostname) || url.hostname.endsWith('.localhost');
}

export function mountProjectPages(app: Hono<WebEnv>, services: Services) {
  const rememberProject = (c: Ctx, projectId: string) =>
    setCookie(c, LAST_PROJECT_COOKIE, projectId, { path: '/', httpOnly: true, sameSite: 'Lax', maxAge: 365 * 86400, secure: services.deps.config.publicUrl.startsWith('https://') });

  app.get('/switch', (c) => c.redirect(`/projects/${encodeURIComponent(c.req.query('project') ?? '')}/runs`, 303));
  app.get('/projects/:id', (c) => c.redirect(`/projects/${encodeURIComponent(param(c))}/runs`, 302));

  app.get(
    '/projects/:id/runs',
    page(services, async (c) => {
      const principal = c.get('principal');
      const projectId = param(c);
      const filters = { branch: text(c.req.query('branch')), status: oneOf(c.req.query('status'), ['running', 'passed', 'failed', 'cancelled']), tag: text(c.req.query('tag')), q: text(c.req.query('q')) };
      const pageNo = pageOf(c.req.query('page'));
      const nav = await loadNav(services, principal, projectId, 'runs');
      if (!nav.current) return renderError(c, services, new NotFoundError('Project'));
      const [runs, trend, branches] = await Promise.all([
        services.runOverview.browse(principal, { projectId, branch: filters.branch, status: filters.status, tag: filters.tag, text: filters.q, limit: RUNS_PER_PAGE, offset: (pageNo - 1) * RUNS_PER_PAGE }),
        services.runOverview.trend(principal, projectId, 30),
        services.runOverview.branches(principal, projectId),
      ]);
      rememberProject(c, projectId);
      return render(c, services, <RunsPage nav={nav} runs={runs} trend={trend} branches={branches} filters={filters} page={pageNo} pageSize={RUNS_PER_PAGE} />);
    }),
  );

  app.get(
    '/runs/:id',
    page(services, async (c) => {
      const principal = c.get('principal');
      const filters = { status: oneOf(c.req.query('status'), ['passed', 'failed', 'flaky', 'skipped']), q: text(c.req.query('q')) };
      const pageNo = pageOf(c.req.query('page'));
      // The suite first (it checks the run and the principal's access too): its file counts are
      // the run's counts, which the header would otherwise count again (every result of a re-run).
      const suite = await services.runOverview.suite(principal, param(c), { status: filters.status, search: filters.q, limit: TESTS_PER_PAGE, offset: (pageNo - 1) * TESTS_PER_PAGE });
      const run = await services.runs.get(principal, param(c), suite.counts);
      const [nav, { groups, comparison, flaky }, shards, snapshots] = await Promise.all([
        loadNav(services, principal, run.projectId, 'runs'),
        services.runComparison.summary(principal, run.id),
        run.finishedShards !== null ? services.runs.shards(principal, run.id).then((r) => r.data) : [],
        services.baselines.countOfRun(run.id),
      ]);
      const fingerprints = [...new Set(groups.flatMap((g) => g.tests.map((t) => t.errorFingerprint)).filter((fp): fp is string => fp !== null))];
      const seen = await services.errorGroups.firstSeenOf(run.projectId, fingerprints);
      rememberProject(c, run.projectId);
      return render(c, services, <RunPage nav={nav} run={run} shards={shards} groups={groups} seen={seen} comparison={comparison} flaky={flaky} suite={suite} filters={filters} page={pageNo} snapshots={snapshots} />);
    }),
  );

  app.get(
    '/runs/:id/compare',
    page(services, async (c) => {
      const principal = c.get('principal');
      const run = await services.runs.get(principal, param(c));
      const nav = await loadNav(services, principal, run.projectId, 'runs');
      const base = text(c.req.query('base'));
      if (base) return render(c, services, <ComparePage nav={nav} c={await services.runCompare.compare(principal, run.id, { base, limit: COMPARE_LIMITS.listMax })} />);
      const branch = text(c.req.query('branch'));
      const [runs, branches] = await Promise.all([
        services.runOverview.browse(principal, { projectId: run.projectId, branch, limit: RUNS_PER_PAGE, offset: 0 }),
        services.runOverview.branches(principal, run.projectId),
      ]);
      return render(c, services, <ComparePickPage nav={nav} runId={run.id} runs={runs.data} branches={branches} branch={branch} />);
    }),
  );

  app.get(
    '/tests/:id',
    page(services, async (c) => {
      const principal = c.get('principal');
      const test = await services.results.get(principal, param(c));
      const tries = triesOf(test, 0);
      const asked = Number(c.req.query('retry'));
      const selected = tries.some((a) => a.retry === asked) && c.req.query('retry') !== '' ? asked : defaultTry(tries);
      const [run, steps, artifacts, history, caseState, nav] = await Promise.all([
        services.runs.get(principal, test.runId),
        services.results.steps(principal, test.id, selected),
        services.artifacts.list(principal, { runId: test.runId, testId: test.id }),
        services.results.history(principal, test.id),
        services.caseState.ofTest(principal, test.id),
        loadNav(services, principal, test.projectId, 'runs'),
      ]);
      return render(
        c,
        services,
        <TestPage nav={nav} test={test} tries={tries} selected={selected} run={run} steps={steps.data} artifacts={artifacts.data} history={history.data.slice(0, LIMITS.historyLength)} caseState={caseState} secureContext={isSecureContext(c, services)} />,
      );
    }),
  );

  app.get(
    '/projects/:id/flaky',
    page(services, async (c) => {
      const principal = c.get('principal');
      const projectId = param(c);
      const filters = {
        quarantined: oneOf(c.req.query('quarantined'), ['true', 'false']),
        minScore: oneOf(c.req.query('minScore'), ['0.1', '0.2', '0.5']),
        owner: text(c.req.query('owner')),
      };
      const pageNo = pageOf(c.req.query('page'));
      // Like every page: a project out of reach is "not found", not the service's 403 for a projectId parameter.
      const nav = await loadNav(services, principal, projectId, 'flaky');
      if (!nav.current) return renderError(c, services, new NotFoundError('Project'));
      const list = await services.flakiness.list(principal, {
        projectId,
        owner: filters.owner,
        minScore: filters.minScore ? Number(filters.minScore) : undefined,
        quarantined: filters.quarantined === undefined ? undefined : filters.quarantined === 'true',
        limit: FLAKY_PER_PAGE,
        offset: (pageNo - 1) * FLAKY_PER_PAGE,
      });
      rememberProject(c, projectId);
      const canQuarantine = roleAllows(nav.current.role, 'quarantine');
      const url = new URL(c.req.url);
      return render(
        c,
        services,
        <FlakyPage nav={nav} entries={list.data} summary={list.summary} total={list.total} filters={filters} page={pageNo} pageSize={FLAKY_PER_PAGE} canQuarantine={canQuarantine} back={url.pathname + url.search} />,
      );
    }),
  );

  app.post(
    '/projects/:id/flaky/quarantine',
    page(services, async (c) => {
      const form = await formFields(c);
      await services.flakiness.setQuarantine(c.get('principal'), { projectId: param(c), testId: form.testId ?? '', isQuarantined: form.quarantined === 'true' });
      return c.redirect(safeNext(form.back), 303);
    }),
  );

  mountErrorPages(app, services, page);
  mountInsightsPages(app, services, page);
  mountSearchPages(app, services, page);
  mountVisualPages(app, services, page);

  /** `/`: the last project used (or the first one reachable). */
  return async function home(c: Ctx) {
    const principal = c.get('principal');
    const nav = await loadNav(services, principal, getCookie(c, LAST_PROJECT_COOKIE) ?? null, 'runs');
    const project = nav.current?.project ?? nav.teams.flatMap((t) => t.projects)[0];
    if (project) return c.redirect(`/projects/${project.id}/runs`, 302);
    return render(c, services, <NoProject nav={nav} />);
  };
}

function NoProject({ nav }: { nav: NavData }) {
  return (
    <Layout title="No project yet" nav={nav}>
      <h1>No project yet</h1>
      <p>You are not a member of any team with a project. Ask a team admin for an invitation, or create a team and a project with <code>POST /auth/onboarding</code> or <code>reporter-server init</code>.</p>
    </Layout>
  );
}
