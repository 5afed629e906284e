import type { CompiledQuery } from 'kysely';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createInsightsRepo } from './insightsRepo.js';
import { createTestRepo } from '../results/repo.js';
import { resultsOfCasesInRun } from './caseResults.js';
import { openDatabase, testDbKind, type OpenedDatabase } from '../testing/database.js';
import { startTestServer, type TestServer } from '../testing/harness.js';
import { createRun, postTests, testBody } from '../testing/results.js';

/**
 * The run page's failures on PostgreSQL, for a run its statistics have not seen yet (a new run, or
 * any run while autovacuum is off or behind). With `later.run_id = tests.run_id` the planner took
 * `tests_run` for the "no later result of this case in this run" check, and walked the rest of the
 * run once per failure: 7–50 s for a 50,000-test run with 2,500 failures (issue 30). The check must
 * go through `tests_case_window` (the case's results in the run's id range). web/indexes.test.ts
 * does the same for SQLite.
 */
const onPostgres = testDbKind() === 'postgres';
let t: TestServer;
let opened: OpenedDatabase;
const seen: CompiledQuery[] = [];

interface PlanNode { 'Node Type': string; 'Index Name'?: string; 'Join Type'?: string; Alias?: string; Plans?: PlanNode[] }
const nodes = (n: PlanNode): PlanNode[] => [n, ...(n.Plans ?? []).flatMap(nodes)];

beforeAll(async () => {
  if (!onPostgres) return;
  t = await startTestServer();
  opened = openDatabase(t.server.config.databaseUrl, { log: (e) => { if (e.level === 'query') seen.push(e.query); } });
}, 120_000);
afterAll(async () => {
  await opened?.close();
  await t?.close();
});

it.runIf(onPostgres)('checks a failure for later results of its case through tests_case_window, not by walking the run', async () => {
  const base = await createRun(t);
  const run = await createRun(t);
  for (const r of [base, run]) {
    await postTests(t, Array.from({ length: 400 }, (_, i) => testBody(r.id, t.projectId, { fullTitle: `plans > ${i}`, status: i % 20 === 0 ? 'failed' : 'passed' })));
  }
  // A resent failure that later passed: not a failure of the run any more.
  await postTests(t, [testBody(run.id, t.projectId, { fullTitle: 'plans > 0', status: 'passed' })]);
  seen.length = 0;
  const failures = await createInsightsRepo(opened.db).newestWithStatus(run.id, ['failed']);
  expect(failures.map((f) => f.fullTitle).sort()).toEqual(Array.from({ length: 19 }, (_, k) => `plans > ${(k + 1) * 20}`).sort());

  expect(await indexesOf(/not exists/, 'later')).toEqual(['tests_case_window']);
});

it.runIf(onPostgres)('looks up the fixed cases of a run with one probe of tests_case_window per case', async () => {
  const run = await createRun(t);
  await postTests(t, Array.from({ length: 300 }, (_, i) => testBody(run.id, t.projectId, { fullTitle: `fixed > ${i}`, status: 'passed' })));
  await postTests(t, [testBody(run.id, t.projectId, { fullTitle: 'fixed > 7', status: 'failed' })]);
  const cases = await opened.db.selectFrom('test_cases').select(['id', 'full_title']).where('full_title', 'in', ['fixed > 3', 'fixed > 7', 'plans > 1']).execute();
  seen.length = 0;
  const found = await createInsightsRepo(opened.db).newestOfCases(run.id, cases.map((c) => c.id));
  const byTitle = Object.fromEntries(cases.filter((c) => found.has(c.id)).map((c) => [c.full_title, found.get(c.id)!.status]));
  // The newest result in this run wins; a case without a result in it is absent.
  expect(byTitle).toEqual({ 'fixed > 3': 'passed', 'fixed > 7': 'failed' });
  expect(await indexesOf(/lateral/, 'tests')).toEqual(['tests_case_window']);
});

it.runIf(onPostgres)('checks the results of a re-run for other attempts of their case with probes of tests_case_window, not a join over the run', async () => {
  // Attempt 1: 300 tests, every 10th failing; attempt 2 runs the first 100 again, all passing.
  const build = { ciBuildId: `plans-${Date.now()}` };
  const run = await createRun(t, { ...build, attempt: 1 });
  await postTests(t, Array.from({ length: 300 }, (_, i) => testBody(run.id, t.projectId, { fullTitle: `rerun > ${i}`, status: i % 10 === 0 ? 'failed' : 'passed' })));
  const joined = await t.api('POST', '/runs', { auth: t.apiKey, body: { projectId: t.projectId, status: 'running', ...build, attempt: 2 } });
  expect([joined.status, (joined.body as { id: string }).id]).toEqual([200, run.id]);
  await postTests(t, Array.from({ length: 100 }, (_, i) => testBody(run.id, t.projectId, { fullTitle: `rerun > ${i}`, status: 'passed' })));

  const listed = await t.api('GET', `/tests?projectId=${t.projectId}&runId=${run.id}&limit=500`, { auth: t.apiKey });
  const items = (listed.body as { data: { fullTitle: string; ciAttempt: number }[]; total: number });
  expect(items.total).toBe(300);
  expect(items.data.filter((d) => d.fullTitle === 'rerun > 0').map((d) => d.ciAttempt)).toEqual([2]);
  seen.length = 0;
  await createTestRepo(opened.db).list({ projectId: t.projectId, runId: run.id, limit: 50, offset: 0, latestAttemptOnly: true });
  expect(await indexesOf(/^select count\(\*\).*not exists/s, 'later')).toEqual(['tests_case_window']);
  expect(await joinsOf(/^select count\(\*\).*not exists/s)).toEqual([]);

  seen.length = 0;
  // Failed in attempt 1, passed in attempt 2: flaky (the first 100's failures, 0, 10, …, 90).
  const flaky = await createInsightsRepo(opened.db).suitePage({ runId: run.id, status: 'flaky', limit: 500, offset: 0 });
  expect(flaky.rows.map((r) => r.full_title).sort()).toEqual(Array.from({ length: 10 }, (_, k) => `rerun > ${k * 10}`).sort());
  expect(await indexesOf(/^select "id".*exists \(select 1 from tests as earlier/s, 'earlier')).toEqual(['tests_case_window']);
  expect(await indexesOf(/^select "id".*exists \(select 1 from tests as earlier/s, 'later')).toEqual(['tests_case_window']);
  expect(await joinsOf(/^select "id".*exists \(select 1 from tests as earlier/s)).toEqual([]);

  // What a re-run's batch reads back for the insights upkeep: every attempt of its cases, not the run.
  const cases = await opened.db.selectFrom('test_cases').select(['id', 'full_title']).where('full_title', 'in', ['rerun > 0', 'rerun > 151']).execute();
  seen.length = 0;
  const rows = await resultsOfCasesInRun(opened.db, run.id, cases.map((c) => c.id), ['run_attempt', 'status']);
  const title = new Map(cases.map((c) => [c.id, c.full_title]));
  expect(rows.map((r) => `${title.get(r.case_id)} #${r.run_attempt} ${r.status}`).sort()).toEqual(['rerun > 0 #1 failed', 'rerun > 0 #2 passed', 'rerun > 151 #1 passed']);
  expect(rows.map((r) => r.id)).toEqual(rows.map((r) => r.id).sort());
  expect(await indexesOf(/lateral/, 'tests')).toEqual(['tests_case_window']);
});

/** The anti- and semi-joins in the plan of the captured query matching `sql` (the checks must stay per-row probes). */
async function joinsOf(sql: RegExp): Promise<string[]> {
  return (await planOf(sql)).map((n) => n['Join Type'] ?? '').filter((j) => j === 'Anti' || j === 'Semi');
}

async function planOf(sql: RegExp): Promise<PlanNode[]> {
  const query = seen.find((q) => sql.test(q.sql));
  expect(query, String(sql)).toBeDefined();
  const { rows } = await opened.db.executeQuery<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>({ ...query!, sql: `explain (format json) ${query!.sql}` });
  return nodes(rows[0]!['QUERY PLAN'][0].Plan);
}

/** The distinct indexes the scans of `alias` use in the plan of the captured query matching `sql`. */
async function indexesOf(sql: RegExp, alias: string): Promise<(string | undefined)[]> {
  // A bitmap heap scan names its index in the bitmap index scan below it.
  return [...new Set((await planOf(sql))
    .filter((n) => n.Alias === alias)
    .map((n) => (n['Node Type'] === 'Bitmap Heap Scan' ? nodes(n).find((c) => c['Index Name'])?.['Index Name'] : n['Index Name'] ?? n['Node Type'])))];
}
