import { sql, type Kysely } from 'kysely';
import { dialectOf } from '../database.js';

/**
 * `run_result_counts`: what each write of results added to its run, per status (results/repo.ts
 * `insertTests`), so a run's counts are the sum of a few rows, one per batch (or joint of one-test
 * requests), instead of a count of its results. A running run has no stored counts yet; a dashboard
 * or script polling it counted every result each time: 161 µs per read of a 1,500-test run on
 * SQLite while results were arriving, 250–300 ms for 50,000 on PostgreSQL (docs/benchmarks.md).
 * Results are stored only this way and leave only with their run (FK cascade), so the sums stay
 * exact. The key leads with the run (its rows are one range) and names the write by its first
 * result's id, unique like the results'. Filled here from the results already stored.
 */
export async function up(db: Kysely<any>): Promise<void> {
  // Ids compare by bytes on PostgreSQL (migration 029), as the runs' ids they refer to.
  const id = dialectOf(db).name === 'postgres' ? sql`text collate "C"` : sql`text`;
  await db.schema
    .createTable('run_result_counts')
    .addColumn('run_id', id, (c) => c.notNull().references('runs.id').onDelete('cascade'))
    .addColumn('first_id', id, (c) => c.notNull())
    .addColumn('total', 'integer', (c) => c.notNull())
    .addColumn('passed', 'integer', (c) => c.notNull())
    .addColumn('failed', 'integer', (c) => c.notNull())
    .addColumn('skipped', 'integer', (c) => c.notNull())
    .addColumn('flaky', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('run_result_counts_pk', ['run_id', 'first_id'])
    .execute();
  const is = (status: string) => sql`sum(case when status = ${sql.lit(status)} then 1 else 0 end)`;
  await sql`insert into run_result_counts (run_id, first_id, total, passed, failed, skipped, flaky)
    select run_id, min(id), count(*), ${is('passed')}, ${is('failed')}, ${is('skipped')}, ${is('flaky')} from tests group by run_id`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('run_result_counts').execute();
}
