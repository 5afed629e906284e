import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDbKind } from '../testing/database.js';
import { startTestServer, type TestServer } from '../testing/harness.js';
import { bucketOf } from './bucketOf.js';
import { packEach } from './histogram.js';
import { foldPending, PENDING_PER_FOLD } from './rollup.js';
import * as m028 from '../db/migrations/028_pending_without_fk_sqlite.js';

// A fold takes at most PENDING_PER_FOLD pending rows, the oldest. PostgreSQL's skips the walk to that
// offset when the ids show every visible row fits (insights/rollup.ts `boundOfFold`); SQLite's
// empties the table with one unconditional DELETE when it took every row (insights/foldInSql.ts).
// Both paths must move exactly the rows they read, no more and no fewer.
let t: TestServer;
beforeAll(async () => {
  t = await startTestServer({ backgroundJobs: false });
}, 180_000);
afterAll(() => t?.close());

const db = () => t.server.services.deps.db;
const onPostgres = it.runIf(testDbKind() === 'postgres');
const onSqlite = it.runIf(testDbKind() === 'sqlite');

/** Pending rows with the given ids: one passed result of 100 ms each, 100 cases of one day. */
async function pending(fromId: number, toId: number) {
  const [histogram] = packEach([100], bucketOf);
  const row = (g: ReturnType<typeof sql.ref>) => sql`${g}, ${t.projectId}, '2026-11-01', 'main', 'case-' || (${g} % 100), 1, 1, 0, 0, 0, `;
  const columns = sql`insert into insight_pending (id, project_id, day, branch, case_id, results, passed, failed, flaky, skipped, latest_test_id, histogram)`;
  if (testDbKind() === 'postgres') {
    await sql`${columns} select ${row(sql.ref('g'))}'t' || lpad(g::text, 9, '0'), ${histogram} from generate_series(${fromId}::bigint, ${toId}::bigint) g`.execute(db());
  } else {
    await sql`${columns} with recursive s(g) as (select ${fromId} union all select g + 1 from s where g < ${toId})
      select ${row(sql.ref('g'))}printf('t%09d', g), ${histogram} from s`.execute(db());
  }
}
const folded = async () =>
  Number((await db().selectFrom('insight_rollups').select((eb) => eb.fn.sum<string>('results').as('n')).where('all_branches', '=', 1).executeTakeFirstOrThrow()).n ?? 0);
const left = async () => (await db().selectFrom('insight_pending').select('id').orderBy('id').execute()).map((r) => Number(r.id));

describe('one fold of pending rows', () => {
  it('moves at most PENDING_PER_FOLD rows, the oldest, and the rest in the next fold', async () => {
    await pending(1, PENDING_PER_FOLD + 1);
    expect(await foldPending(db())).toBe(PENDING_PER_FOLD);
    expect(await left()).toEqual([PENDING_PER_FOLD + 1]);
    expect(await folded()).toBe(PENDING_PER_FOLD);
    expect(await foldPending(db())).toBe(1);
    expect(await left()).toEqual([]);
    expect(await folded()).toBe(PENDING_PER_FOLD + 1);
  });

  it('moves every visible row at once when they are fewer, whatever the gaps between their ids', async () => {
    const before = await folded();
    await pending(PENDING_PER_FOLD * 3, PENDING_PER_FOLD * 3 + 9);
    await pending(PENDING_PER_FOLD * 5, PENDING_PER_FOLD * 5 + 9);
    expect(await foldPending(db())).toBe(20);
    expect(await left()).toEqual([]);
    expect(await folded()).toBe(before + 20);
  });

  // The unconditional DELETE frees the table's pages only when no foreign key involves the table.
  onSqlite('keeps insight_pending out of every foreign key on SQLite (migration 028)', async () => {
    expect((await sql`select * from pragma_foreign_key_list('insight_pending')`.execute(db())).rows).toEqual([]);
  });

  onSqlite('keeps the pending rows through migration 028 down and up; down drops those of projects gone', async () => {
    const keys = async () => (await sql<{ table: string }>`select "table" from pragma_foreign_key_list('insight_pending')`.execute(db())).rows.map((r) => r.table);
    await pending(7, 9);
    await sql`insert into insight_pending (project_id, day, branch, case_id, results, passed, failed, flaky, skipped, latest_test_id, histogram)
      values ('gone', '2026-11-01', 'main', 'c', 1, 1, 0, 0, 0, 't', x'')`.execute(db());
    await m028.down(db());
    expect(await keys()).toEqual(['projects']);
    expect(await left()).toEqual([7, 8, 9]);
    await m028.up(db());
    expect(await keys()).toEqual([]);
    expect(await left()).toEqual([7, 8, 9]);
    expect(await foldPending(db())).toBe(3);
    expect(await left()).toEqual([]);
  });

  onPostgres('keeps insight_pending out of every foreign key on PostgreSQL (migration 026)', async () => {
    const keys = await sql`select conname from pg_constraint where contype = 'f' and conrelid = 'insight_pending'::regclass`.execute(db());
    expect(keys.rows).toEqual([]);
  });
});
