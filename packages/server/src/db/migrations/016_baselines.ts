import type { Kysely } from 'kysely';
import type { MigrationTypes } from '../database.js';

/**
 * Screenshot baselines (issue 28, docs/decisions.md §13):
 * - `artifacts.snapshot_path`: for a snapshot comparison's files, the baseline's path relative to
 *   the Playwright project root; NULL for every other artifact (nullable, no default: no rewrite).
 * - `snapshot_acceptances`: one row per accepted snapshot of a test result, naming the actual that
 *   became the baseline. The primary key (test, name) makes a repeated accept a no-op and lets two
 *   servers accepting at once agree; deleting the row is the undo.
 */
export async function up(db: Kysely<any>, _t: MigrationTypes): Promise<void> {
  await db.schema.alterTable('artifacts').addColumn('snapshot_path', 'text').execute();
  await db.schema
    .createTable('snapshot_acceptances')
    .addColumn('test_id', 'text', (c) => c.notNull().references('tests.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('run_id', 'text', (c) => c.notNull().references('runs.id').onDelete('cascade'))
    .addColumn('actual_id', 'text', (c) => c.notNull().references('artifacts.id').onDelete('cascade'))
    .addColumn('accepted_by', 'text', (c) => c.notNull())
    .addColumn('accepted_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('snapshot_acceptances_pk', ['test_id', 'name'])
    .execute();
  await db.schema.createIndex('snapshot_acceptances_run').on('snapshot_acceptances').column('run_id').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('snapshot_acceptances').execute();
  await db.schema.alterTable('artifacts').dropColumn('snapshot_path').execute();
}
