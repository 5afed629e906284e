import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDbKind } from '../testing/database.js';
import { startTestServer, type TestServer } from '../testing/harness.js';
import { bucketOf } from './bucketOf.js';
import { packEach } from './histogram.js';
import { foldPending, PENDING_PER_FOLD } from './rollup.js';

// PostgreSQL's fold takes at most PENDING_PER_FOLD pending rows, the oldest, and skips the walk to
// that offset when the ids show every visible row fits (insights/rollup.ts `boundOfFold`). Both
// paths must move exactly the rows they read, no more and no fewer.
let t: TestServer;
beforeAll(async () => {
  t = await startTestServer({ backgroundJobs: false });
}, 180_000);
afterAll(() => t?.close());

const db = () => t.server.services.deps.db;
const onPostgres = it.runIf(testDbKind() === 'postgres');

/** Pending rows with the given ids: one passed result of 100 ms each, 100 cases of one day. */
async function pending(fromId: number, toId: number) {
  const [histogram] = packEach([100], bucketOf);
  await sql`insert into insight_pending (id, project_id, day, branch, case_id, results, passed, failed, flaky, skipped, latest_test_id, histogram)
    select g, ${t.projectId}, '2026-11-01', 'main', 'case-' || (g % 100), 1, 1, 0, 0, 0, 't' || lpad(g::text, 9, '0'), ${histogram}
    from generate_series(${fromId}::bigint, ${toId}::bigint) g`.execute(db());
}
const folded = async () =>
  Number((await db().selectFrom('insight_rollups').select((eb) => eb.fn.sum<string>('results').as('n')).where('all_branches', '=', 1).executeTakeFirstOrThrow()).n ?? 0);
const left = async () => (await db().selectFrom('insight_pending').select('id').orderBy('id').execute()).map((r) => Number(r.id));

describe('one fold of pending rows (PostgreSQL)', () => {
  onPostgres('moves at most PENDING_PER_FOLD rows, the oldest, and the rest in the next fold', async () => {
    await pending(1, PENDING_PER_FOLD + 1);
    expect(await foldPending(db())).toBe(PENDING_PER_FOLD);
    expect(await left()).toEqual([PENDING_PER_FOLD + 1]);
    expect(await folded()).toBe(PENDING_PER_FOLD);
    expect(await foldPending(db())).toBe(1);
    expect(await left()).toEqual([]);
    expect(await folded()).toBe(PENDING_PER_FOLD + 1);
  });

  onPostgres('moves every visible row at once when they are fewer, whatever the gaps between their ids', async () => {
    const before = await folded();
    await pending(PENDING_PER_FOLD * 3, PENDING_PER_FOLD * 3 + 9);
    await pending(PENDING_PER_FOLD * 5, PENDING_PER_FOLD * 5 + 9);
    expect(await foldPending(db())).toBe(20);
    expect(await left()).toEqual([]);
    expect(await folded()).toBe(before + 20);
  });
});
