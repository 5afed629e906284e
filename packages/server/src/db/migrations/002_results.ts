import type { Kysely } from 'kysely';

/**
 * Indexes the results endpoints need to stay index lookups with a million results per project
 * (checked with EXPLAIN QUERY PLAN in runs/indexes.test.ts).
 */
export async function up(db: Kysely<any>): Promise<void> {
  // Derived run counts are one grouped COUNT per page of runs; (run_id, status) makes it index-only.
  await db.schema.createIndex('tests_run_status').on('tests').columns(['run_id', 'status']).execute();
  // GET /tests?projectId&status without runId: newest first within one status.
  await db.schema.createIndex('tests_project_status').on('tests').columns(['project_id', 'status', 'id']).execute();
  // SQLite looks up children by parent on every suite delete (FK cascade); without this, a run delete scans all suites.
  await db.schema.createIndex('test_suites_parent').on('test_suites').column('parent_suite_id').execute();
  // Flakiness reads a case's newest 50 results on every recompute. Results of one case are spread
  // over the whole table (one per run), so with (case_id, id) alone each of the 50 costs a random
  // row read; carrying the scored columns in the index makes the window one contiguous range.
  // It replaces tests_case (same leading columns: history and the FK cascade still use it).
  await db.schema
    .createIndex('tests_case_window')
    .on('tests')
    .columns(['case_id', 'id', 'status', 'is_flaky', 'run_id', 'commit_sha', 'created_at'])
    .execute();
  await db.schema.dropIndex('tests_case').execute();
  // Retention: a project's runs older than its window, oldest first.
  await db.schema.createIndex('runs_project_created').on('runs').columns(['project_id', 'created_at']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.createIndex('tests_case').on('tests').columns(['case_id', 'id']).execute();
  for (const name of ['tests_case_window', 'tests_run_status', 'tests_project_status', 'test_suites_parent', 'runs_project_created']) {
    await db.schema.dropIndex(name).ifExists().execute();
  }
}
