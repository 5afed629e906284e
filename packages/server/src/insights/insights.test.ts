import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dialectOf } from '../db/database.js';
import * as m017 from '../db/migrations/017_insights.js';
import * as m021 from '../db/migrations/021_insights_lean.js';
import * as m022 from '../db/migrations/022_insight_rollups.js';
import { startTestServer, type TestServer } from '../testing/harness.js';
import { createRun, postTests, testBody } from '../testing/results.js';

/*
 * A generated history whose truth is known. 40 daily runs on main, run i on 2026-10-(12+i), so runs
 * 1–19 fall in the 30 days before the window (Oct 2–31) and runs 20–40 in it (Nov 1–21); "today" is
 * Nov 30. Per run: "grows" takes 1000 ms and from run 20 on 1500 ms (50% slower); "fast" 200 ms;
 * "sometimes" is flaky on every third run; "always" fails every run; "half" fails on even runs;
 * "skip" is always skipped. CODEOWNERS gives the slow spec to @acme/perf. On Nov 10 a feature-branch
 * run passes "always" and fails "fast". On Nov 25 a CI build (branch ci) fails "retried" in its first
 * attempt and passes it in a re-run: one result, flaky, never a failure.
 */
let t: TestServer;
let clock = new Date('2026-10-13T08:00:00.000Z');
const CODEOWNERS = '* @acme/all\ntests/slow.spec.ts @acme/perf\n';
const runDuration = (i: number) => 60_000 + i * 1000;
const ids: Record<string, string> = {};

const day = (i: number) => new Date(Date.UTC(2026, 9, 12 + i, 8));
const mainTests = (runId: string, i: number) => [
  testBody(runId, t.projectId, { title: 'grows', fullTitle: 'slow > grows', filePath: 'tests/slow.spec.ts', duration: i < 20 ? 1000 : 1500 }),
  testBody(runId, t.projectId, { title: 'fast', fullTitle: 'steady > fast', filePath: 'tests/steady.spec.ts', duration: 200 }),
  testBody(runId, t.projectId, { title: 'sometimes', fullTitle: 'flaky > sometimes', filePath: 'tests/flaky.spec.ts', duration: 300, status: i % 3 === 0 ? 'flaky' : 'passed' }),
  testBody(runId, t.projectId, { title: 'always', fullTitle: 'broken > always', filePath: 'tests/broken.spec.ts', duration: 50, status: 'failed', error: { message: 'Error: nope' } }),
  testBody(runId, t.projectId, { title: 'fails', fullTitle: 'half > fails', filePath: 'tests/half.spec.ts', duration: 80, ...(i % 2 === 0 ? { status: 'failed', error: { message: 'Error: even' } } : {}) }),
  testBody(runId, t.projectId, { title: 'me', fullTitle: 'skip > me', filePath: 'tests/skip.spec.ts', duration: 0, status: 'skipped' }),
];
/** Passed results of main run i (of 6). */
const mainPassed = (i: number) => 2 + (i % 3 === 0 ? 0 : 1) + (i % 2 === 0 ? 0 : 1);

async function insights(query: string, auth: string | TestServer['owner'] = t.apiKey) {
  return t.api('GET', `/insights?projectId=${t.projectId}${query}`, { auth });
}
const titles = (items: { fullTitle: string }[]) => items.map((x) => x.fullTitle);

beforeAll(async () => {
  t = await startTestServer({ now: () => clock });
  for (let i = 1; i <= 40; i++) {
    clock = day(i);
    const run = await createRun(t, { branch: 'main', commitSha: `c${i}`, codeowners: CODEOWNERS });
    const stored = await postTests(t, mainTests(run.id, i));
    ids[`last-${i}`] = stored[0].id;
    await t.api('PATCH', `/runs/${run.id}`, { auth: t.apiKey, body: { status: 'failed', duration: runDuration(i) } });
    if (i === 29) {
      const feature = await createRun(t, { branch: 'feature/x', commitSha: 'f1', codeowners: CODEOWNERS });
      await postTests(t, [
        testBody(feature.id, t.projectId, { title: 'always', fullTitle: 'broken > always', filePath: 'tests/broken.spec.ts', duration: 50 }),
        testBody(feature.id, t.projectId, { title: 'fast', fullTitle: 'steady > fast', filePath: 'tests/steady.spec.ts', duration: 200, status: 'failed', error: { message: 'Error: x' } }),
      ]);
      await t.api('PATCH', `/runs/${feature.id}`, { auth: t.apiKey, body: { status: 'failed', duration: 10_000 } });
    }
  }
  clock = new Date(Date.UTC(2026, 10, 25, 8));
  const build = await createRun(t, { branch: 'ci', ciBuildId: 'b-1', attempt: 1 });
  await postTests(t, [testBody(build.id, t.projectId, { title: 'retried', fullTitle: 'ci > retried', filePath: 'tests/ci.spec.ts', duration: 400, status: 'failed', error: { message: 'Error: once' } })]);
  const rerun = await t.api('POST', '/runs', { auth: t.apiKey, body: { projectId: t.projectId, status: 'running', branch: 'ci', ciBuildId: 'b-1', attempt: 2 } });
  expect(rerun.status).toBe(200);
  const [retried] = await postTests(t, [testBody(build.id, t.projectId, { title: 'retried', fullTitle: 'ci > retried', filePath: 'tests/ci.spec.ts', duration: 400 })]);
  ids.retried = retried.id;
  clock = new Date('2026-11-30T12:00:00.000Z');
}, 180_000);
afterAll(() => t?.close());

describe('GET /insights', () => {
  it('answers the trend per day of the window with exact run counts, pass rates and median run times', async () => {
    const res = await insights('&days=30&branch=main');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ days: 30, branch: 'main', owner: null, from: '2026-11-01', to: '2026-11-30' });
    expect(res.body.trend).toHaveLength(30);
    res.body.trend.forEach((d: { date: string; runs: number; passRate: number | null; medianDuration: number | null }, k: number) => {
      const i = 20 + k;
      expect(d.date).toBe(`2026-11-${String(k + 1).padStart(2, '0')}`);
      if (i <= 40) expect(d).toEqual({ date: d.date, runs: 1, passRate: Math.round((mainPassed(i) / 6) * 10_000) / 100, medianDuration: runDuration(i) });
      else expect(d).toEqual({ date: d.date, runs: 0, passRate: null, medianDuration: null });
    });
    // Every branch: Nov 10 has the feature run too (1 passed of 2), Nov 25 the CI build (one flaky result).
    const all = (await insights('&days=30')).body.trend;
    expect(all[9]).toEqual({ date: '2026-11-10', runs: 2, passRate: Math.round(((mainPassed(29) + 1) / 8) * 10_000) / 100, medianDuration: (runDuration(29) + 10_000) / 2 });
    expect(all[24]).toEqual({ date: '2026-11-25', runs: 1, passRate: 0, medianDuration: null });
  });

  it('lists the slowest, most failing and flakiest tests with exact figures, and the test that became 50% slower', async () => {
    const { body } = await insights('&days=30&branch=main');
    expect(body.slowest.map((x: { fullTitle: string; p50: number; p95: number; results: number }) => [x.fullTitle, x.p50, x.p95, x.results])).toEqual([
      ['slow > grows', 1500, 1500, 21], ['flaky > sometimes', 300, 300, 21], ['steady > fast', 200, 200, 21], ['half > fails', 80, 80, 21], ['broken > always', 50, 50, 21],
    ]);
    expect(body.slowest[0]).toMatchObject({ testId: ids['last-40'], filePath: 'tests/slow.spec.ts' });
    expect(body.mostFailing).toEqual([
      expect.objectContaining({ fullTitle: 'broken > always', failures: 21, failureRate: 100, results: 21 }),
      // Runs 20, 22, …, 40: 11 of 21.
      expect.objectContaining({ fullTitle: 'half > fails', failures: 11, failureRate: 52.38 }),
    ]);
    // Runs 21, 24, …, 39: 7 of 21.
    expect(body.flakiest).toEqual([expect.objectContaining({ fullTitle: 'flaky > sometimes', flaky: 7, flakyRate: 33.33 })]);
    expect(body.regressions).toEqual([expect.objectContaining({ fullTitle: 'slow > grows', p50Before: 1000, p50After: 1500, change: 50, testId: ids['last-40'] })]);
    // A 7-day window (Nov 24–30) holds no main run, and its week before none either.
    const week = (await insights('&days=7&branch=main')).body;
    expect(week.trend.every((d: { runs: number }) => d.runs === 0)).toBe(true);
    expect([week.slowest, week.regressions]).toEqual([[], []]);
    expect(titles((await insights('&limit=1&branch=main')).body.slowest)).toEqual(['slow > grows']);
  });

  it('counts a re-run CI build once, as its latest attempt left each test', async () => {
    const { body } = await insights('&branch=ci');
    expect(body.mostFailing).toEqual([]);
    expect(body.flakiest).toEqual([expect.objectContaining({ fullTitle: 'ci > retried', testId: ids.retried, flaky: 1, flakyRate: 100, results: 1 })]);
    expect(body.slowest).toEqual([expect.objectContaining({ fullTitle: 'ci > retried', p50: 400, results: 1 })]);
  });

  it('filters by branch and by CODEOWNERS owner', async () => {
    const feature = (await insights('&branch=feature/x')).body;
    expect(feature.mostFailing).toEqual([expect.objectContaining({ fullTitle: 'steady > fast', failures: 1, failureRate: 100 })]);
    // Every branch: "always" failed 21 times of 22 (it passed on the feature branch).
    const all = (await insights('')).body;
    expect(all.mostFailing[0]).toMatchObject({ fullTitle: 'broken > always', failures: 21, results: 22, failureRate: 95.45 });
    const perf = (await insights('&branch=main&owner=@acme/perf')).body;
    expect(perf.owner).toBe('@acme/perf');
    expect(titles(perf.slowest)).toEqual(['slow > grows']);
    expect([perf.mostFailing, perf.flakiest]).toEqual([[], []]);
    expect(titles((await insights('&branch=main&owner=@acme/all')).body.mostFailing)).toEqual(['broken > always', 'half > fails']);
    expect((await insights('&owner=@acme/nobody')).body.slowest).toEqual([]);
  });

  it('lets viewers read, refuses other teams and answers 400 naming a bad window', async () => {
    const viewer = await t.createUser({ teamId: t.teamId, role: 'viewer' });
    expect((await insights('&days=90', viewer)).status).toBe(200);
    const other = await t.createOtherTenant();
    // A project named in the query that the caller may not read is 403, as on every `projectId=` read (decisions §3).
    expect((await insights('', other.owner)).status).toBe(403);
    expect((await insights('', other.apiKey)).status).toBe(403);
    const bad = await insights('&days=14');
    expect(bad.status).toBe(400);
    expect(bad.body.error.details.field).toBe('days');
  });

  it('filters error groups by owner too (GET /errors and /errors/:fingerprint)', async () => {
    const errors = (q: string) => t.api('GET', `/errors?projectId=${t.projectId}&branch=main${q}`, { auth: t.apiKey });
    const all = (await errors('&owner=@acme/all')).body;
    expect(all.data.map((g: { filePath: string; occurrences: number }) => [g.filePath, g.occurrences]).sort()).toEqual([['tests/broken.spec.ts', 40], ['tests/half.spec.ts', 20]]);
    expect((await errors('&owner=@acme/perf')).body).toMatchObject({ data: [], total: 0 });
    const fp = all.data.find((g: { filePath: string }) => g.filePath === 'tests/broken.spec.ts').fingerprint;
    const one = (owner: string) => t.api('GET', `/errors/${fp}?projectId=${t.projectId}&owner=${encodeURIComponent(owner)}`, { auth: t.apiKey });
    expect((await one('@acme/all')).body).toMatchObject({ occurrences: 40, testCases: [expect.objectContaining({ fullTitle: 'broken > always' })] });
    expect((await one('@acme/perf')).status).toBe(404);
  });

  it('rebuilds the same aggregates from stored results (migrations 017, 021 and 022 on an existing database)', async () => {
    const before = (await insights('&days=90')).body;
    const db = t.server.services.deps.db;
    const types = dialectOf(db).columnTypes;
    await m022.down(db, types);
    await m021.down(db, types);
    await m017.down(db);
    // From here on the history is only its results: 017 counts them, 021 moves its tables, 022 folds them.
    await m017.up(db, types);
    await m021.up(db, types);
    await m022.up(db, types);
    expect((await insights('&days=90')).body).toEqual(before);
  });

  it('takes what retention deletes out of the aggregates', async () => {
    // 20 days kept from Nov 30 12:00: runs before Nov 10 12:00 go (main runs 1–29 and the feature run).
    const admin = await t.createUser({ teamId: t.teamId, role: 'owner' });
    expect((await t.api('PATCH', `/projects/${t.projectId}/settings`, { auth: admin, body: { dataRetentionDays: 20 } })).status).toBe(200);
    expect(await t.server.services.retention.sweepOnce()).toEqual({ deletedRuns: 30 });
    const { body } = await insights('&days=30&branch=main');
    expect(body.trend.slice(0, 10).map((d: { runs: number; passRate: number | null }) => [d.runs, d.passRate])).toEqual(Array.from({ length: 10 }, () => [0, null]));
    expect(body.trend[10]).toMatchObject({ date: '2026-11-11', runs: 1 });
    expect(body.mostFailing[0]).toMatchObject({ fullTitle: 'broken > always', failures: 11, results: 11 });
    expect(body.regressions).toEqual([]);
    expect((await insights('&branch=feature/x')).body.mostFailing).toEqual([]);
  });
});
