import { chunk, IN_LIST_CHUNK } from '../db/batch.js';
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
    /** Which of these storage keys an artifact row names (start-up sweep); a key ends in its artifact id. */
    async storedKeys(keys: string[]): Promise<Set<string>> {
      const out = new Set<string>();
      for (const part of chunk(keys, IN_LIST_CHUNK)) {
        const ids = part.map((k) => k.slice(k.lastIndexOf('/') + 1));
        const rows = await db.selectFrom('artifacts').select('storage_key').where('id', 'in', ids).execute();
        for (const r of rows) if (part.includes(r.storage_key)) out.add(r.storage_key);
      }
      return out;
    },
    runProject: (runId: string) => db.selectFrom('runs').select(['id', 'project_id']).where('id', '=', runId).executeTakeFirst(),
    testRun: (testId: string) => db.selectFrom('tests').select(['id', 'run_id']).where('id', '=', testId).executeTakeFirst(),
  };
}
export type ArtifactRepo = ReturnType<typeof createArtifactRepo>;
