import type { CreateTableBuilder, Kysely } from 'kysely';
import { dialectOf, type MigrationTypes } from '../database.js';
import { foldProject, unfoldAll } from '../../insights/rollup.js';

/**
 * The insights aggregates as the upkeep appends them and as reads want them (insights/rollup.ts,
 * docs/insights.md "How insights are kept"):
 * - `insight_pending`: what each stored batch adds, one row per (project, day, branch, test case) of
 *   the batch, appended (no key to look up, no row to update: the cheapest write per result), with
 *   the batch's duration histogram of that case packed in the row;
 * - `insight_rollups`: the same folded per (project, scope, day, test case) — `all_branches` 1 holds
 *   every branch together (`branch` ''), 0 one branch — so `GET /insights` reads one row per case and
 *   day (issue 27: p99 ≤ 300 ms at 10,000,000 results). Only the fold writes it.
 * Reads add both. The tables of migration 017 stay as the set-based rebuild's staging (it writes
 * them, the fold empties them); what they hold now is folded here.
 */
export async function up(db: Kysely<any>, _t: MigrationTypes): Promise<void> {
  const postgres = dialectOf(db).name === 'postgres';
  const bytes = postgres ? 'bytea' : 'blob';
  const counts = (t: CreateTableBuilder<string, string>): CreateTableBuilder<string, string> =>
    t
      .addColumn('results', 'integer', (c) => c.notNull())
      .addColumn('passed', 'integer', (c) => c.notNull())
      .addColumn('failed', 'integer', (c) => c.notNull())
      .addColumn('flaky', 'integer', (c) => c.notNull())
      .addColumn('skipped', 'integer', (c) => c.notNull())
      .addColumn('latest_test_id', 'text', (c) => c.notNull())
      .addColumn('histogram', bytes, (c) => c.notNull());
  await counts(
    db.schema
      .createTable('insight_rollups')
      .addColumn('project_id', 'text', (c) => c.notNull().references('projects.id').onDelete('cascade'))
      .addColumn('all_branches', 'integer', (c) => c.notNull())
      .addColumn('branch', 'text', (c) => c.notNull())
      .addColumn('day', 'text', (c) => c.notNull())
      .addColumn('case_id', 'text', (c) => c.notNull()),
  )
    // A table with its key index, not WITHOUT ROWID as migration 021's: a row of ~60 buckets is close
    // to 1 KB, past what a WITHOUT ROWID page keeps inline, and reading such rows through their
    // overflow pages doubled the time of a 30-day answer. Only the fold writes here.
    .addPrimaryKeyConstraint('insight_rollups_pk', ['project_id', 'all_branches', 'branch', 'day', 'case_id'])
    .execute();
  await counts(
    db.schema
      .createTable('insight_pending')
      // SQLite: the rowid itself (appended at the end of the table); PostgreSQL: an identity.
      .addColumn('id', postgres ? 'bigint' : 'integer', (c) => (postgres ? c.primaryKey().generatedByDefaultAsIdentity() : c.primaryKey()))
      .addColumn('project_id', 'text', (c) => c.notNull().references('projects.id').onDelete('cascade'))
      .addColumn('day', 'text', (c) => c.notNull())
      .addColumn('branch', 'text', (c) => c.notNull())
      .addColumn('case_id', 'text', (c) => c.notNull()),
  ).execute();
  for (const p of await db.selectFrom('projects').select('id').execute()) await foldProject(db, p.id);
}

/** Puts everything back in migration 017's tables. */
export async function down(db: Kysely<any>, _t: MigrationTypes): Promise<void> {
  await unfoldAll(db);
  await db.schema.dropTable('insight_pending').execute();
  await db.schema.dropTable('insight_rollups').execute();
}
