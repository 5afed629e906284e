import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../testing/harness.js';
import { createRun, postTests, testBody } from '../testing/results.js';
import * as migration from '../db/migrations/030_run_result_counts.js';

// A running run's counts come from what each write of results added (run_result_counts, migration
// 030), not from counting its results. However the results arrive (batches, concurrent one-test
// requests stored jointly, a joint whose call fails and whose calls run again alone, a replayed
// Idempotency-Key), the counts must be those of the results stored, and go with the run.

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(() => t?.close());

const STATUSES = ['passed', 'failed', 'skipped', 'flaky'] as const;

/** What the run's stored results count, by status: the rule the counts must keep. */
async function countResults(runId: string) {
  const rows = await t.server.services.deps.db
    .selectFrom('tests')
    .select(['status', (eb) => eb.fn.countAll<number>().as('n')])
    .where('run_id', '=', runId)
    .groupBy('status')
    .execute();
  const n = (s: string) => Number(rows.find((r) => r.status === s)?.n ?? 0);
  return { totalTests: rows.reduce((sum, r) => sum + Number(r.n), 0), passedTests: n('passed'), failedTests: n('failed'), skippedTests: n('skipped'), flakyTests: n('flaky') };
}

async function countsOf(runId: string) {
  const res = await t.api('GET', `/runs/${runId}`, { auth: t.apiKey });
  expect(res.status).toBe(200);
  const { totalTests, passedTests, failedTests, skippedTests, flakyTests } = res.body;
  return { totalTests, passedTests, failedTests, skippedTests, flakyTests };
}

it('a running run counts every result stored, however it arrived, and its counts go with it', async () => {
  const run = await createRun(t);
  const other = await createRun(t);
  const body = (runId: string, i: number, over: Record<string, unknown> = {}) =>
    testBody(runId, t.projectId, { title: `case ${i}`, fullTitle: `area > case ${i}`, status: STATUSES[i % 4], ...over });

  // One batch for two runs: each gets its own part.
  await postTests(t, [...Array.from({ length: 30 }, (_, i) => body(run.id, i)), ...Array.from({ length: 5 }, (_, i) => body(other.id, i))]);
  // Concurrent one-test requests, stored jointly; one names a run that does not exist, so its joint
  // is rolled back and each of its calls runs again alone: the others are stored once, it is not.
  const singles = await Promise.all(
    Array.from({ length: 24 }, (_, i) => t.api('POST', '/tests', { auth: t.apiKey, body: body(i === 7 ? randomUUID() : run.id, 100 + i) })),
  );
  expect(singles.map((r) => r.status).sort()).toEqual([...Array(23).fill(201), 400].sort());
  // A replayed Idempotency-Key answers again without storing again.
  const key = `replay-${randomUUID()}`;
  for (let i = 0; i < 2; i++) {
    const res = await t.api('POST', '/tests/batch', { auth: t.apiKey, headers: { 'Idempotency-Key': key }, body: { tests: [body(run.id, 200, { status: 'failed' })] } });
    expect(res.status).toBe(201);
  }

  const expected = await countResults(run.id);
  expect(expected.totalTests).toBe(30 + 23 + 1);
  expect(await countsOf(run.id)).toEqual(expected);
  expect(await countsOf(other.id)).toEqual(await countResults(other.id));
  expect((await countsOf(other.id)).totalTests).toBe(5);
  // The finish with stored counts still wins over what was derived (docs/decisions.md §4).
  const finished = await t.api('PATCH', `/runs/${other.id}`, { auth: t.apiKey, body: { status: 'passed', totalTests: 9, passedTests: 9, failedTests: 0, skippedTests: 0, flakyTests: 0 } });
  expect(finished.body).toMatchObject({ totalTests: 9, passedTests: 9 });

  const db = t.server.services.deps.db;
  const rowsOf = async (runId: string) => Number((await db.selectFrom('run_result_counts').select((eb) => eb.fn.countAll<number>().as('n')).where('run_id', '=', runId).executeTakeFirstOrThrow()).n);
  expect(await rowsOf(run.id)).toBeGreaterThan(0);
  expect((await t.api('DELETE', `/runs/${run.id}`, { auth: t.owner })).status).toBe(200);
  expect(await rowsOf(run.id)).toBe(0);
  expect(await rowsOf(other.id)).toBeGreaterThan(0);
});

it('the migration fills the counts of results stored before it', async () => {
  const run = await createRun(t);
  await postTests(t, Array.from({ length: 12 }, (_, i) => testBody(run.id, t.projectId, { title: `old ${i}`, fullTitle: `old > ${i}`, status: STATUSES[(i * 3) % 4] })));
  const empty = await createRun(t);
  const db = t.server.services.deps.db;
  // As before migration 030: no counts kept, then the migration over what is stored.
  await migration.down(db);
  await migration.up(db);
  expect(await countsOf(run.id)).toEqual(await countResults(run.id));
  expect((await countsOf(run.id)).totalTests).toBe(12);
  expect(await countsOf(empty.id)).toMatchObject({ totalTests: 0, passedTests: 0 });
  // And what arrives afterwards adds to them.
  await postTests(t, [testBody(run.id, t.projectId, { title: 'new', fullTitle: 'new', status: 'failed' })]);
  expect(await countsOf(run.id)).toEqual(await countResults(run.id));
});
