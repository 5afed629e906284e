import { migrateToLatest, openDatabase } from '../db/database.js';
import { countAllResults } from '../insights/upkeep.js';
import { foldPending, foldProject } from '../insights/rollup.js';

/**
 * Maintenance work on a migrated database for tools outside the server process — the bench's
 * generated histories (bench/lib/aggregates.mjs) — built as `dist/maintenance.js`, so they run the
 * server's own code on its own dialect layer instead of a copy of its SQL.
 */

/**
 * Rebuilds the insights aggregates (migration 017's backfill) over every stored result of the
 * database at `databaseUrl` (a PostgreSQL URL or an SQLite file), in one transaction: what was in
 * them is replaced. The rows are staged in migration 017's tables, which reads do not look at:
 * fold them next (`foldInsightsAggregates`, or a server's fold at its start). Returns the rows staged.
 */
export async function rebuildInsightsAggregates(databaseUrl: string): Promise<{ days: number; durations: number }> {
  const { db, close } = openDatabase(databaseUrl);
  try {
    await db.transaction().execute(async (trx) => {
      await trx.deleteFrom('insight_rollups').execute();
      await trx.deleteFrom('insight_pending').execute();
      await trx.deleteFrom('insight_case_durations').execute();
      await trx.deleteFrom('insight_case_days').execute();
      await countAllResults(trx);
    });
    const count = async (table: 'insight_case_days' | 'insight_case_durations') =>
      Number((await db.selectFrom(table).select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n);
    return { days: await count('insight_case_days'), durations: await count('insight_case_durations') };
  } finally {
    await close();
  }
}

/**
 * Folds the insights aggregates into their rollups (insights/rollup.ts), as a server's job does at
 * start and every 15 s; a day per transaction, after bringing the schema up to date (a history kept
 * from an older build). Returns the pending and staged rows moved and the rollup rows made.
 */
export async function foldInsightsAggregates(databaseUrl: string): Promise<{ moved: number; rollups: number }> {
  const { db, close } = openDatabase(databaseUrl);
  try {
    await migrateToLatest(db);
    let moved = 0;
    for (let n = await foldPending(db); n > 0; n = await foldPending(db)) moved += n;
    for (const p of await db.selectFrom('projects').select('id').execute()) moved += await foldProject(db, p.id);
    const rollups = Number((await db.selectFrom('insight_rollups').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n);
    return { moved, rollups };
  } finally {
    await close();
  }
}
