import type { Db } from '../db/database.js';
import { lockForTransaction } from '../db/locks.js';

/**
 * Deletes projects and, after them, their rows of the insights aggregates, in one transaction: on
 * PostgreSQL those tables hold no foreign key to cascade from (migration 026). After the projects'
 * rows are gone no batch can add a pending row for them (storing a result checks its project), and
 * the fold's lock keeps a fold of rows read before from writing rollups after.
 */
export async function deleteProjectsWithInsights(db: Db, deleteProjects: (trx: Db) => Promise<readonly string[]>): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await lockForTransaction(trx, 'insights-rollup');
    const ids = await deleteProjects(trx);
    if (ids.length === 0) return;
    await trx.deleteFrom('insight_pending').where('project_id', 'in', ids).execute();
    await trx.deleteFrom('insight_rollups').where('project_id', 'in', ids).execute();
  });
}
