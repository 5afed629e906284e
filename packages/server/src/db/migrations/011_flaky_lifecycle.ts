import type { Kysely } from 'kysely';
import type { MigrationTypes } from '../database.js';

/**
 * Quarantine lifecycle and owners (issue 29, docs/decisions.md §13):
 * - project policies: `auto_quarantine_min_runs` (default 5, the former fixed minimum) and
 *   `auto_release_after_passes` (0 = off), so existing projects behave as before;
 * - `quarantine_events`: one row per quarantine change, by a user, an API key or a policy, with the
 *   score at the time; read newest first per case;
 * - owners: a run keeps the CODEOWNERS text it was sent (and where its file paths start in the
 *   repository); each result stores the owners resolved for its file (a JSON array), and each case
 *   the owners of its latest result, which `owner=` filters read.
 */
export async function up(db: Kysely<any>, t: MigrationTypes): Promise<void> {
  await db.schema.alterTable('project_settings').addColumn('auto_quarantine_min_runs', 'integer', (c) => c.notNull().defaultTo(5)).execute();
  await db.schema.alterTable('project_settings').addColumn('auto_release_after_passes', 'integer', (c) => c.notNull().defaultTo(0)).execute();
  await db.schema.alterTable('runs').addColumn('codeowners', 'text').execute();
  await db.schema.alterTable('runs').addColumn('root_dir_in_repo', 'text').execute();
  await db.schema.alterTable('tests').addColumn('owners', 'text').execute();
  await db.schema.alterTable('test_cases').addColumn('owners', 'text').execute();
  // When the case was last released: auto-quarantine waits for a flaky result after it, or the old
  // flaky results still in the score would quarantine a test again right after its clean passes.
  await db.schema.alterTable('test_cases').addColumn('released_at', 'text').execute();

  await db.schema
    .createTable('quarantine_events')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('project_id', 'text', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('case_id', 'text', (c) => c.notNull().references('test_cases.id').onDelete('cascade'))
    .addColumn('action', 'text', (c) => c.notNull())
    .addColumn('actor_type', 'text', (c) => c.notNull())
    .addColumn('actor_id', 'text', (c) => c.notNull())
    .addColumn('actor_name', 'text', (c) => c.notNull())
    .addColumn('reason', 'text', (c) => c.notNull())
    .addColumn('score', t.float, (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('quarantine_events_case').on('quarantine_events').columns(['case_id', 'created_at']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('quarantine_events').execute();
  await db.schema.alterTable('test_cases').dropColumn('released_at').execute();
  await db.schema.alterTable('test_cases').dropColumn('owners').execute();
  await db.schema.alterTable('tests').dropColumn('owners').execute();
  await db.schema.alterTable('runs').dropColumn('root_dir_in_repo').execute();
  await db.schema.alterTable('runs').dropColumn('codeowners').execute();
  await db.schema.alterTable('project_settings').dropColumn('auto_release_after_passes').execute();
  await db.schema.alterTable('project_settings').dropColumn('auto_quarantine_min_runs').execute();
}
