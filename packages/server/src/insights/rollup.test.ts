import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dialectOf } from '../db/database.js';
import * as m022 from '../db/migrations/022_insight_rollups.js';
import * as m026 from '../db/migrations/026_insights_lean_pg.js';
import { startTestServer, type TestServer } from '../testing/harness.js';
import { createRun, postTests, testBody } from '../testing/results.js';
import { countAllResults } from './upkeep.js';

/*
 * Folding (insights/rollup.ts) must never change an answer: what `GET /insights` says with every row
 * pending, it says with every row folded, with some folded and some not, and after
 * results of folded days are taken out or replaced (a run deleted, a CI build re-run) — and that
 * answer is the one a rebuild from the stored results gives. The history: 24 daily runs on main,
 * every fourth day a feature-branch run (its results in one batch with main's) and every fifth a run
 * without a branch; durations that vary within and across buckets, a test that gets slower, flaky,
 * failed and skipped results, CODEOWNERS.
 */
let t: TestServer;
let clock = new Date('2026-11-01T08:00:00.000Z');
const CODEOWNERS = '* @acme/all\ntests/slow.spec.ts @acme/perf\n';
const runIds: string[] = [];
const QUERIES = ['&days=7', '&days=7&branch=main', '&days=30', '&days=90', '&days=30&branch=main', '&days=30&branch=feature%2Fa', '&days=30&owner=%40acme%2Fperf'];

const at = (i: number, hour = 8) => new Date(Date.UTC(2026, 10, 1 + i, hour));
const tests = (runId: string, i: number) => [
  testBody(runId, t.projectId, { title: 'grows', fullTitle: 'slow > grows', filePath: 'tests/slow.spec.ts', duration: i < 19 ? 1000 + i : 1600 + 3 * i }),
  testBody(runId, t.projectId, { title: 'varies', fullTitle: 'steady > varies', filePath: 'tests/steady.spec.ts', duration: 150 + ((i * 37) % 400) + 0.25 }),
  testBody(runId, t.projectId, { title: 'sometimes', fullTitle: 'flaky > sometimes', filePath: 'tests/flaky.spec.ts', duration: 300, status: i % 3 === 0 ? 'flaky' : 'passed' }),
  testBody(runId, t.projectId, { title: 'half', fullTitle: 'half > fails', filePath: 'tests/half.spec.ts', duration: 80 + i, ...(i % 2 === 0 ? { status: 'failed', error: { message: 'Error: even' } } : {}) }),
  testBody(runId, t.projectId, { title: 'me', fullTitle: 'skip > me', filePath: 'tests/skip.spec.ts', duration: 0, status: 'skipped' }),
];

async function answers() {
  const out: Record<string, unknown> = {};
  for (const q of QUERIES) {
    const res = await t.api('GET', `/insights?projectId=${t.projectId}${q}`, { auth: t.apiKey });
    expect(res.status).toBe(200);
    out[q] = res.body;
  }
  return out;
}
const db = () => t.server.services.deps.db;
const count = async (table: 'insight_case_days' | 'insight_case_durations' | 'insight_rollups' | 'insight_pending') =>
  Number((await db().selectFrom(table).select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n);
const fold = () => t.server.services.insightRollup.foldOnce();

beforeAll(async () => {
  t = await startTestServer({ now: () => clock, backgroundJobs: false });
  for (let i = 0; i < 24; i++) {
    clock = at(i);
    const run = await createRun(t, { branch: 'main', commitSha: `c${i}`, codeowners: CODEOWNERS });
    runIds.push(run.id);
    if (i % 4 === 0) {
      // One batch with the results of two runs, as an upload of a merged report sends them.
      clock = at(i, 9);
      const feature = await createRun(t, { branch: 'feature/a', codeowners: CODEOWNERS });
      await postTests(t, [...tests(run.id, i), ...tests(feature.id, i + 100)]);
    } else await postTests(t, tests(run.id, i));
    if (i % 5 === 0) {
      clock = at(i, 10);
      const none = await createRun(t, { codeowners: CODEOWNERS });
      await postTests(t, tests(none.id, i + 200).slice(0, 3));
    }
  }
  clock = at(25, 12);
}, 180_000);
afterAll(() => t?.close());

describe('folding the insights aggregates', () => {
  it('answers exactly as before a fold, after it, and after changes to folded days, as a rebuild from the results does', async () => {
    const unfolded = await answers();
    expect((unfolded['&days=30'] as { slowest: unknown[] }).slowest.length).toBeGreaterThan(0);
    expect((unfolded['&days=7&branch=main'] as { regressions: { fullTitle: string }[] }).regressions.map((r) => r.fullTitle)).toContain('slow > grows');
    const pending = await count('insight_pending');
    expect(pending).toBeGreaterThan(0);

    // Everything folded: nothing is pending and nothing reads differently.
    expect(await fold()).toEqual({ moved: pending });
    expect(await count('insight_pending')).toBe(0);
    expect(await count('insight_rollups')).toBeGreaterThan(0);
    expect(await answers()).toEqual(unfolded);
    expect(await fold()).toEqual({ moved: 0 });

    // Folded days change: a run deleted, a CI build of a folded day re-run (its re-run passes what
    // failed: flaky), and a run today. Those changes sit in the upkeep's tables, some below zero.
    clock = at(3, 11);
    const build = await createRun(t, { branch: 'main', ciBuildId: 'b-1', attempt: 1, codeowners: CODEOWNERS });
    await postTests(t, tests(build.id, 2));
    await fold();
    clock = at(25, 12);
    const rerun = await t.api('POST', '/runs', { auth: t.apiKey, body: { projectId: t.projectId, status: 'running', branch: 'main', ciBuildId: 'b-1', attempt: 2 } });
    expect(rerun.status).toBe(200);
    await postTests(t, tests(build.id, 3).slice(3, 4));
    expect((await t.api('DELETE', `/runs/${runIds[20]}`, { auth: t.apiKey })).status).toBe(200);
    const today = await createRun(t, { branch: 'main', codeowners: CODEOWNERS });
    await postTests(t, tests(today.id, 25));
    const changed = await answers();
    expect(changed).not.toEqual(unfolded);
    expect(await count('insight_rollups')).toBeGreaterThan(0);
    expect(await count('insight_pending')).toBeGreaterThan(0);

    await fold();
    expect(await count('insight_pending')).toBe(0);
    expect(await answers()).toEqual(changed);
    // The deleted run's rows of main on its day came to nothing: they are gone, not kept at zero.
    const empty = await db().selectFrom('insight_rollups').select((eb) => eb.fn.countAll<number>().as('n')).where('results', '=', 0).executeTakeFirstOrThrow();
    expect(Number(empty.n)).toBe(0);
    const folded = await count('insight_rollups');

    // The truth: the aggregates rebuilt from the stored results (staged, then folded).
    await db().transaction().execute(async (trx) => {
      for (const table of ['insight_rollups', 'insight_pending', 'insight_case_durations', 'insight_case_days'] as const) await trx.deleteFrom(table).execute();
      await countAllResults(trx);
    });
    expect(await count('insight_case_days')).toBeGreaterThan(0);
    await fold();
    expect([await count('insight_case_days'), await count('insight_case_durations')]).toEqual([0, 0]);
    expect(await answers()).toEqual(changed);
    expect(await count('insight_rollups')).toBe(folded);
  });

  it('migration 022 down puts folded and pending rows back in migration 017\'s tables, and up folds them again', async () => {
    await fold();
    const today = await createRun(t, { branch: 'main', codeowners: CODEOWNERS });
    await postTests(t, tests(today.id, 26));
    expect(await count('insight_pending')).toBeGreaterThan(0);
    const before = await answers();
    const types = dialectOf(db()).columnTypes;
    await m022.down(db(), types);
    expect(await count('insight_case_days')).toBeGreaterThan(0);
    await m022.up(db(), types);
    expect([await count('insight_case_days'), await count('insight_case_durations'), await count('insight_pending')]).toEqual([0, 0, 0]);
    expect(await answers()).toEqual(before);
  });

  it('migration 026 down and up again (PostgreSQL: the foreign keys back, then the aggregate the fold groups with) keep every answer', async () => {
    const today = await createRun(t, { branch: 'main', codeowners: CODEOWNERS });
    await postTests(t, tests(today.id, 27));
    const before = await answers();
    // The test before re-created migration 022's tables with their foreign keys: 026 again first.
    await m026.up(db());
    await m026.down(db());
    await m026.up(db());
    await fold();
    expect(await count('insight_pending')).toBe(0);
    expect(await answers()).toEqual(before);
  });
});
