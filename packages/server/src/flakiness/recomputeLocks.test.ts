import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDbKind } from '../testing/database.js';
import { startTestServer, type TestServer } from '../testing/harness.js';
import { createRun, postTests, testBody } from '../testing/results.js';

// A flakiness recompute (after a run's finish, before GET /flakiness) must never wait for a case
// that a batch of another run is writing: on PostgreSQL the batch holds its cases' rows until it
// commits, and a recompute that waited for one while holding others deadlocked with it, failing
// the batch with a 500 (bench/bigrun.mjs --db postgres, 50,000 tests per run).
let t: TestServer;
const db = () => t.server.services.deps.db;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(async () => {
  await t?.close();
});

async function dirtyCases() {
  const run = await createRun(t);
  await postTests(t, ['A', 'B', 'C'].map((c) => testBody(run.id, t.projectId, { title: c, fullTitle: `locks > ${c}`, status: c === 'B' ? 'flaky' : 'passed' })));
  const rows = await db().selectFrom('test_cases').select(['id', 'full_title']).where('full_title', 'like', 'locks > %').orderBy('full_title').execute();
  return rows.map((r) => r.id) as [string, string, string];
}
const dirtyOf = async (ids: string[]) =>
  (await db().selectFrom('test_cases').select(['id', 'stats_dirty']).where('id', 'in', ids).execute()).reduce<Record<string, number>>((o, r) => ({ ...o, [r.id]: r.stats_dirty }), {});

describe('flakiness recompute beside writers', () => {
  it.runIf(testDbKind() === 'postgres')('skips a case another transaction holds, leaves it dirty, and recomputes it once free', async () => {
    const [a, b, c] = await dirtyCases();
    // Another connection holds B's row, as a batch that upserted B and has not committed does.
    const writer = new pg.Client({ connectionString: t.server.config.databaseUrl });
    await writer.connect();
    try {
      await writer.query('begin');
      await writer.query('select id from test_cases where id = $1 for update', [b]);
      const refresh = t.server.services.flakiness.internal.refresh(t.projectId, [a, b, c]);
      const outcome = await Promise.race([refresh.then(() => 'done'), new Promise((r) => setTimeout(() => r('waited for the held case'), 5_000))]);
      expect(outcome).toBe('done');
      expect(await dirtyOf([a, b, c])).toEqual({ [a]: 0, [b]: 1, [c]: 0 });
      await writer.query('commit');
    } finally {
      await writer.end();
    }
    await t.server.services.flakiness.internal.refresh(t.projectId, [a, b, c]);
    expect(await dirtyOf([a, b, c])).toEqual({ [a]: 0, [b]: 0, [c]: 0 });
    const body = (await t.api('GET', `/flakiness?projectId=${t.projectId}`, { auth: t.apiKey })).body;
    expect(body.data.map((e: { fullTitle: string }) => e.fullTitle)).toEqual(['locks > B']);
  });

  it.runIf(testDbKind() === 'postgres')('waits for another recompute of the project instead of skipping its cases', async () => {
    const ids = await dirtyCases();
    // Another server's recompute of this project, mid-chunk.
    const other = new pg.Client({ connectionString: t.server.config.databaseUrl });
    await other.connect();
    try {
      await other.query('begin');
      await other.query('select pg_advisory_xact_lock(hashtext($1))', [`testreport:flakiness:${t.projectId}`]);
      let done = false;
      const refresh = t.server.services.flakiness.internal.refresh(t.projectId, ids).then(() => (done = true));
      await new Promise((r) => setTimeout(r, 1_000));
      expect(done).toBe(false);
      await other.query('commit');
      await refresh;
    } finally {
      await other.end();
    }
    expect(Object.values(await dirtyOf(ids))).toEqual([0, 0, 0]);
  });

  it('recomputes every dirty case when nothing else writes them', async () => {
    const ids = await dirtyCases();
    await t.server.services.flakiness.internal.refresh(t.projectId, ids);
    expect(Object.values(await dirtyOf(ids))).toEqual([0, 0, 0]);
  });
});
