import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../testing/harness.js';
import { createRun, postTests, testBody } from '../testing/results.js';
import { bucketOf, bucketSql, nearBucketEdgeSql } from './buckets.js';
import { countAllResults } from './upkeep.js';
import { decodeInto, type Histogram } from './histogram.js';

/*
 * Migration 017's backfill (countAllResults, set-based SQL) must write exactly the rows the
 * incremental upkeep wrote while the same history arrived through the API. The history mixes what
 * the counting rules treat differently: re-run CI builds (a case re-run and passed reads flaky, a
 * case not re-run keeps its first attempt, a case re-run twice counts its third attempt only),
 * flaky, failed and skipped results, repeat-each (two results of one case in a run), runs with no
 * branch, several days and branches, two projects, and durations on and beside histogram bucket
 * edges (0, below 1 ms, powers of two, doubles where SQL's logarithm rounds the other way).
 */
let t: TestServer;
let clock = new Date('2026-11-02T08:00:00.000Z');

/** Durations where a SQL logarithm and Math.log2 disagree about the bucket, or nearly could. */
const EDGES = [0, 0.5, 0.999, 1, 2, 1024, 1.2968395546510096, 7.999999999999998, 2.82842712474619, 9.110309078053533, 3.9999999999999996, 1500, 1000.25, 123456.789, 2 ** 20];

const spec = (name: string, over: Record<string, unknown> = {}) => ({ title: name, fullTitle: `mixed > ${name}`, filePath: `tests/${name}.spec.ts`, ...over });

beforeAll(async () => {
  t = await startTestServer({ now: () => clock, backgroundJobs: false });
  const other = await t.createOtherTenant();
  for (let i = 0; i < 12; i++) {
    clock = new Date(Date.UTC(2026, 10, 2 + Math.floor(i / 3), 8 + i));
    const branch = [undefined, 'main', 'feature/a'][i % 3];
    const run = await createRun(t, { ...(branch ? { branch } : {}), commitSha: `c${i}` });
    await postTests(t, [
      testBody(run.id, t.projectId, spec('edge', { duration: EDGES[i % EDGES.length] })),
      testBody(run.id, t.projectId, spec('edge2', { duration: EDGES[(i + 7) % EDGES.length] })),
      testBody(run.id, t.projectId, spec('steady', { duration: 200 + i })),
      testBody(run.id, t.projectId, spec('flaky', { duration: 300, status: i % 2 ? 'flaky' : 'passed' })),
      testBody(run.id, t.projectId, spec('broken', { duration: 50, status: 'failed', error: { message: `Error: ${i}` } })),
      testBody(run.id, t.projectId, spec('skip', { duration: 0, status: 'skipped' })),
    ]);
    // repeat-each: a second result of one case in the same run, in a batch of its own.
    await postTests(t, [testBody(run.id, t.projectId, spec('steady', { duration: 256 }))]);
  }
  // The other tenant's project: same titles, its own rows.
  const theirs = await t.api('POST', '/runs', { auth: other.apiKey, body: { projectId: other.projectId, status: 'running', branch: 'main' } });
  expect(theirs.status).toBe(201);
  await postTests(t, [testBody(theirs.body.id, other.projectId, spec('steady', { duration: 1024 }))], other.apiKey);
  // A CI build re-run twice on Nov 6: "retried" fails then passes (flaky), "stays" is never re-run
  // (its attempt-1 failure counts), "thrice" fails, fails, passes (flaky, attempt 3 only).
  clock = new Date(Date.UTC(2026, 10, 6, 8));
  const build = await createRun(t, { branch: 'ci', ciBuildId: 'b-1', attempt: 1 });
  await postTests(t, [
    testBody(build.id, t.projectId, spec('retried', { duration: 400, status: 'failed', error: { message: 'Error: once' } })),
    testBody(build.id, t.projectId, spec('stays', { duration: 64, status: 'failed', error: { message: 'Error: stays' } })),
    testBody(build.id, t.projectId, spec('thrice', { duration: 1.5, status: 'failed', error: { message: 'Error: 1' } })),
  ]);
  for (const attempt of [2, 3]) {
    clock = new Date(Date.UTC(2026, 10, 6, 8 + attempt));
    const rerun = await t.api('POST', '/runs', { auth: t.apiKey, body: { projectId: t.projectId, status: 'running', branch: 'ci', ciBuildId: 'b-1', attempt } });
    expect(rerun.status).toBe(200);
    await postTests(t, [
      ...(attempt === 2 ? [testBody(build.id, t.projectId, spec('retried', { duration: 512 }))] : []),
      testBody(build.id, t.projectId, spec('thrice', attempt === 2 ? { duration: 2, status: 'failed', error: { message: 'Error: 2' } } : { duration: 3 })),
    ]);
  }
}, 180_000);
afterAll(() => t?.close());

/**
 * The aggregates folded (insights/rollup.ts), in key order, histograms unpacked (sums rounded: SQL
 * adds a key's durations in another order than the upkeep).
 */
async function snapshot() {
  await t.server.services.insightRollup.foldOnce();
  const db = t.server.services.deps.db;
  for (const table of ['insight_pending', 'insight_case_days', 'insight_case_durations'] as const) {
    expect(Number((await db.selectFrom(table).select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n)).toBe(0);
  }
  const rows = await db.selectFrom('insight_rollups').selectAll().orderBy('project_id').orderBy('all_branches').orderBy('branch').orderBy('day').orderBy('case_id').execute();
  return rows.map(({ histogram, ...r }) => {
    const h: Histogram = new Map();
    decodeInto(h, histogram);
    return { ...r, histogram: [...h].sort(([a], [b]) => a - b).map(([bucket, e]) => [bucket, e.n, Math.round(e.totalMs * 1e6) / 1e6]) };
  });
}

async function rebuild(runsPerBatch?: number) {
  const db = t.server.services.deps.db;
  await db.transaction().execute(async (trx) => {
    for (const table of ['insight_rollups', 'insight_pending', 'insight_case_durations', 'insight_case_days'] as const) await trx.deleteFrom(table).execute();
    await countAllResults(trx, runsPerBatch);
  });
}

describe('rebuilding the insights aggregates in SQL (migration 017 on an existing history)', () => {
  it('makes exactly the rows the incremental upkeep made, in one batch or a run per batch', async () => {
    const incremental = await snapshot();
    // The history is what it says: flaky from re-runs, a third attempt, edges, two projects, no-branch runs.
    const ci = incremental.filter((d) => d.all_branches === 0 && d.branch === 'ci');
    expect(ci.map((d) => [d.results, d.passed, d.failed, d.flaky]).sort()).toEqual([[1, 0, 0, 1], [1, 0, 0, 1], [1, 0, 1, 0]]);
    expect(new Set(incremental.map((d) => d.project_id)).size).toBe(2);
    expect(new Set(incremental.filter((d) => d.all_branches === 0).map((d) => d.branch))).toEqual(new Set(['', 'main', 'feature/a', 'ci']));
    expect(incremental.some((d) => d.histogram.some(([bucket]) => bucket === 0))).toBe(true);

    await rebuild();
    expect(await snapshot()).toEqual(incremental);
    // Every run its own batch: a day's counts are added up across batches.
    await rebuild(1);
    expect(await snapshot()).toEqual(incremental);
  });

  it('buckets durations in SQL as bucketOf does, leaving those on a bucket edge (powers of two) to bucketOf', async () => {
    const db = t.server.services.deps.db;
    const values = new Set<number>([0, 0.25, 0.5, 0.999, 0.9999999999999999, ...EDGES]);
    for (let e = 0; e <= 60; e++) for (const f of [1, 1 + 2 ** -52, 1 - 2 ** -53]) values.add(2 ** e * f);
    // Beside every edge 2^(k/16) up to 2^40 ms: the whole milliseconds and doubles on either side.
    for (let k = 1; k <= 16 * 40; k++) {
      const b = 2 ** (k / 16);
      for (const v of [Math.floor(b) - 1, Math.floor(b), Math.ceil(b), Math.ceil(b) + 1, b, b * (1 + 2 ** -52), b * (1 - 2 ** -52)]) if (v >= 0) values.add(v);
    }
    const list = [...values];
    const wrong: unknown[] = [];
    for (let i = 0; i < list.length; i += 200) {
      const part = list.slice(i, i + 200);
      const selects = part.map((v, j) => {
        const d = sql<number>`cast(${v} as double precision)`;
        return sql`select ${sql.lit(j)} as j, ${bucketSql(db, d)} as bucket, case when ${nearBucketEdgeSql(db, d)} then 1 else 0 end as near`;
      });
      const { rows } = await sql<{ j: number; bucket: number; near: number }>`select * from (${sql.join(selects, sql` union all `)}) v order by j`.execute(db);
      expect(rows).toHaveLength(part.length);
      rows.forEach((r, j) => {
        const v = part[j];
        // Only a value SQL calls near an edge may be bucketed differently: the rebuild asks bucketOf for those.
        if (Number(r.near) === 0 && Number(r.bucket) !== bucketOf(v)) wrong.push({ v, sql: r.bucket, js: bucketOf(v) });
        if (v >= 1 && Number.isInteger(Math.log2(v))) expect([v, Number(r.near)]).toEqual([v, 1]);
        if (v < 1) expect([v, Number(r.bucket), Number(r.near)]).toEqual([v, 0, 0]);
      });
    }
    expect(wrong).toEqual([]);
    expect(list.length).toBeGreaterThan(4000);
  });
});
