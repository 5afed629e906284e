import { openDatabase } from '../db/database.js';
import { countAllResults } from '../insights/upkeep.js';

/**
 * Maintenance work on a migrated database for tools outside the server process — the bench's
 * generated histories (bench/lib/aggregates.mjs) — built as `dist/maintenance.js`, so they run the
 * server's own code on its own dialect layer instead of a copy of its SQL.
 */

/**
 * Rebuilds the insights aggregates (migration 017's backfill) over every stored result of the
 * database at `databaseUrl` (a PostgreSQL URL or an SQLite file), in one transaction: what was in
 * them is replaced. Returns the rows written.
 */
export async function rebuildInsightsAggregates(databaseUrl: string): Promise<{ days: number; durations: number }> {
  const { db, close } = openDatabase(databaseUrl);
  try {
    await db.transaction().execute(async (trx) => {
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
