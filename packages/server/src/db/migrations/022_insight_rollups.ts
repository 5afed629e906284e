import { sql, type Kysely } from 'kysely';
import { dialectOf, type MigrationTypes } from '../database.js';
import { unfoldAll } from '../../insights/rollup.js';

/**
 * `insight_rollups` (insights/rollup.ts): the insights aggregates folded per (project, scope, day,
 * test case), the day's duration histogram packed in one value, so `GET /insights` reads one row per
 * case and day instead of one per case, day, branch and bucket (issue 27: p99 ≤ 300 ms at
 * 10,000,000 results). `all_branches` 1 holds every branch together (`branch` ''), 0 one branch.
 * Rows are written by the compaction only, which moves rows out of `insight_case_days` and
 * `insight_case_durations` into these; reads add both. No foreign key on `case_id` (as migration 021).
 */
export async function up(db: Kysely<any>, _t: MigrationTypes): Promise<void> {
  const bytes = dialectOf(db).name === 'postgres' ? 'bytea' : 'blob';
  await db.schema
    .createTable('insight_rollups')
    .addColumn('project_id', 'text', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('all_branches', 'integer', (c) => c.notNull())
    .addColumn('branch', 'text', (c) => c.notNull())
    .addColumn('day', 'text', (c) => c.notNull())
    .addColumn('case_id', 'text', (c) => c.notNull())
    .addColumn('results', 'integer', (c) => c.notNull())
    .addColumn('passed', 'integer', (c) => c.notNull())
    .addColumn('failed', 'integer', (c) => c.notNull())
    .addColumn('flaky', 'integer', (c) => c.notNull())
    .addColumn('skipped', 'integer', (c) => c.notNull())
    .addColumn('latest_test_id', 'text', (c) => c.notNull())
    .addColumn('histogram', bytes, (c) => c.notNull())
    .addPrimaryKeyConstraint('insight_rollups_pk', ['project_id', 'all_branches', 'branch', 'day', 'case_id'])
    .modifyEnd(sql.raw(dialectOf(db).name === 'postgres' ? '' : ' without rowid'))
    .execute();
}

/** Puts the folded rows back where they came from (one row per scope is enough: the branch rows). */
export async function down(db: Kysely<any>, _t: MigrationTypes): Promise<void> {
  await unfoldAll(db);
  await db.schema.dropTable('insight_rollups').execute();
}
