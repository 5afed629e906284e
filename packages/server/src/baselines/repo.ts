import type { Db } from '../db/database.js';
import type { SnapshotAcceptancesTable } from '../db/schema.js';

export function createBaselineRepo(db: Db) {
  return {
    test: (testId: string) =>
      db
        .selectFrom('tests')
        .innerJoin('runs', 'runs.id', 'tests.run_id')
        .select(['tests.id', 'tests.run_id', 'runs.project_id', 'tests.full_title'])
        .where('tests.id', '=', testId)
        .executeTakeFirst(),
    runProject: (runId: string) => db.selectFrom('runs').select(['id', 'project_id']).where('id', '=', runId).executeTakeFirst(),
    /** The screenshot files of a test: a snapshot comparison's files are among them. */
    screenshots: (testId: string) =>
      db.selectFrom('artifacts').select(['id', 'file_name', 'retry', 'snapshot_path']).where('test_id', '=', testId).where('type', '=', 'screenshot').orderBy('id').execute(),
    acceptances: (testId: string) => db.selectFrom('snapshot_acceptances').selectAll().where('test_id', '=', testId).execute(),
    /** Inserts what is not accepted yet; returns the rows this call added (a repeat adds none). */
    async accept(rows: SnapshotAcceptancesTable[]): Promise<SnapshotAcceptancesTable[]> {
      const added: SnapshotAcceptancesTable[] = [];
      for (const row of rows) {
        const r = await db.insertInto('snapshot_acceptances').values(row).onConflict((oc) => oc.columns(['test_id', 'name']).doNothing()).executeTakeFirst();
        if (Number(r.numInsertedOrUpdatedRows ?? 0) > 0) added.push(row);
      }
      return added;
    },
    unaccept: (testId: string, names: string[]) =>
      names.length ? db.deleteFrom('snapshot_acceptances').where('test_id', '=', testId).where('name', 'in', names).execute() : Promise.resolve([]),
    /** Every snapshot file of a run's tests, with its test (the visual review page). */
    runScreenshots: (runId: string) =>
      db
        .selectFrom('artifacts as a')
        .innerJoin('tests as t', 't.id', 'a.test_id')
        .select(['a.id', 'a.file_name', 'a.retry', 'a.snapshot_path', 'a.test_id', 't.title', 't.full_title', 't.file_path'])
        .where('a.run_id', '=', runId)
        .where('a.type', '=', 'screenshot')
        .where('a.snapshot_path', 'is not', null)
        .orderBy('a.id')
        .execute(),
    /** How many snapshot comparisons (actuals with a path) a run holds, for the run page's link. */
    async countActuals(runId: string): Promise<number> {
      const r = await db
        .selectFrom('artifacts')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('run_id', '=', runId)
        .where('snapshot_path', 'is not', null)
        .where('file_name', 'like', '%-actual.%')
        .executeTakeFirst();
      return Number(r?.n ?? 0);
    },
    runAcceptances: (runId: string) => db.selectFrom('snapshot_acceptances').selectAll().where('run_id', '=', runId).execute(),
    /** The tests of a run whose file is `filePath` ("Accept all in this file"). */
    testsOfFile: (runId: string, filePath: string) => db.selectFrom('tests').select('id').where('run_id', '=', runId).where('file_path', '=', filePath).execute(),
    /** The accepted snapshots of a run with their actual's file. */
    ofRun: (runId: string) =>
      db
        .selectFrom('snapshot_acceptances as s')
        .innerJoin('artifacts as a', 'a.id', 's.actual_id')
        .select(['s.test_id', 's.name', 's.actual_id', 's.accepted_by', 's.accepted_at', 'a.snapshot_path', 'a.sha256'])
        .where('s.run_id', '=', runId)
        .execute(),
  };
}
export type BaselineRepo = ReturnType<typeof createBaselineRepo>;
