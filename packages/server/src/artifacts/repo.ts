import type { Db } from '../db/database.js';
import type { ArtifactsTable } from '../db/schema.js';

export function createArtifactRepo(db: Db) {
  return {
    insert: (row: ArtifactsTable) => db.insertInto('artifacts').values(row).execute(),
    find: (id: string) => db.selectFrom('artifacts').selectAll().where('id', '=', id).executeTakeFirst(),
    list: (runId: string, testId?: string) => {
      let q = db.selectFrom('artifacts').selectAll().where('run_id', '=', runId);
      if (testId) q = q.where('test_id', '=', testId);
      return q.orderBy('id', 'desc').execute();
    },
    runProject: (runId: string) => db.selectFrom('runs').select(['id', 'project_id']).where('id', '=', runId).executeTakeFirst(),
    testRun: (testId: string) => db.selectFrom('tests').select(['id', 'run_id']).where('id', '=', testId).executeTakeFirst(),
  };
}
export type ArtifactRepo = ReturnType<typeof createArtifactRepo>;
