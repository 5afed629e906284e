import type { Selectable } from 'kysely';
import type { Db } from '../db/database.js';
import type { TestSuitesTable } from '../db/schema.js';

export type SuiteRow = Selectable<TestSuitesTable>;

export function createSuiteRepo(db: Db) {
  return {
    async findByIdentity(runId: string, filePath: string, title: string) {
      return db.selectFrom('test_suites').selectAll().where('run_id', '=', runId).where('file_path', '=', filePath).where('title', '=', title).executeTakeFirst();
    },
    async insert(row: SuiteRow) {
      await db.insertInto('test_suites').values(row).execute();
    },
    async setParent(id: string, parentSuiteId: string | null, at: string) {
      await db.updateTable('test_suites').set({ parent_suite_id: parentSuiteId, updated_at: at }).where('id', '=', id).execute();
    },
    async touch(id: string, at: string) {
      await db.updateTable('test_suites').set({ updated_at: at }).where('id', '=', id).execute();
    },
    /** Every suite of a run in one query (oldest first), so the tree is built in memory. */
    async ofRun(runId: string) {
      return db.selectFrom('test_suites').selectAll().where('run_id', '=', runId).orderBy('id').execute();
    },
    async parentLinks(runId: string) {
      return db.selectFrom('test_suites').select(['id', 'parent_suite_id']).where('run_id', '=', runId).execute();
    },
  };
}
