import type { Kysely } from 'kysely';

/**
 * Indexes the dashboard's run page needs to stay fast on a run of 10,000 tests (checked with
 * EXPLAIN QUERY PLAN in web/indexes.test.ts).
 */
export async function up(db: Kysely<any>): Promise<void> {
  // The newest result of every case of a run (comparison, error groups, flaky) read from the index
  // alone: result rows carry steps and logs, so reading 10,000 of them costs 10,000 page visits.
  // It replaces tests_run under the same name, with the same leading columns: GET /tests?runId and
  // the FK cascade use it as before.
  await db.schema.dropIndex('tests_run').execute();
  await db.schema.createIndex('tests_run').on('tests').columns(['run_id', 'id', 'case_id', 'status']).execute();
  // The suite of a run: counts per file and status, and one page in file and title order with a
  // status filter or a title search, all without visiting the result rows beyond the page shown.
  await db.schema.createIndex('tests_run_suite').on('tests').columns(['run_id', 'file_path', 'full_title', 'status']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('tests_run_suite').ifExists().execute();
  await db.schema.dropIndex('tests_run').execute();
  await db.schema.createIndex('tests_run').on('tests').columns(['run_id', 'id']).execute();
}
