import { sql, type Kysely } from 'kysely';
import { dialectOf } from '../database.js';

/**
 * `run_result_counts`: what the writes of results added to their run, per status (results/repo.ts
 * `insertTests`), so a run's counts are the sum of at most 64 rows (`RESULT_COUNT_SLOTS`) instead of a
 * count of its results. A running run has no stored counts yet; a dashboard or script polling it
 * counted every result each time: 161 µs per read of a 1,500-test run on SQLite while results were
 * arriving, 38 ms for 50,000 on PostgreSQL (2.8 ms with these rows; docs/benchmarks.md). Results are stored only
 * there and leave only with their run (FK cascade), so the sums stay exact.
 *
 * A write adds to one of the run's slots, picked by its first result's id: concurrent batches of one
 * run (several servers on PostgreSQL) mostly update different rows instead of queuing for one row's
 * lock. On SQLite the rows are the table's own B-tree (WITHOUT ROWID): a run's are one short range.
 * Filled here from the results already stored, in slot 0.
 */
export async function up(db: Kysely<any>): Promise<void> {
  const postgres = dialectOf(db).name === 'postgres';
  // Ids compare by bytes on PostgreSQL (migration 029), as the runs' ids they refer to.
  await db.schema
    .createTable('run_result_counts')
    .addColumn('run_id', postgres ? sql`text collate "C"` : sql`text`, (c) => c.notNull().references('runs.id').onDelete('cascade'))
    .addColumn('slot', 'integer', (c) => c.notNull())
    .addColumn('total', 'integer', (c) => c.notNull())
    .addColumn('passed', 'integer', (c) => c.notNull())
    .addColumn('failed', 'integer', (c) => c.notNull())
    .addColumn('skipped', 'integer', (c) => c.notNull())
    .addColumn('flaky', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('run_result_counts_pk', ['run_id', 'slot'])
    .$call((t) => (postgres ? t : t.modifyEnd(sql`without rowid`)))
    .execute();
  const is = (status: string) => sql`sum(case when status = ${sql.lit(status)} then 1 else 0 end)`;
  await sql`insert into run_result_counts (run_id, slot, total, passed, failed, skipped, flaky)
    select run_id, 0, count(*), ${is('passed')}, ${is('failed')}, ${is('skipped')}, ${is('flaky')} from tests group by run_id`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('run_result_counts').execute();
}
