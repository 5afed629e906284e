import type { Db } from '../db/database.js';
import { WINDOW_MS, type WindowCounter } from './rateLimit.js';

/**
 * Rate-limit windows in the database, shared by every server on it. One upsert per hit counts
 * atomically (the row lock serializes concurrent hits of one bucket) and starts a new window when
 * the stored one has ended; both SET expressions read the row as it was before the update.
 */
export function createDatabaseCounter(db: Db): WindowCounter {
  let lastSweep = 0;
  return {
    async hit(bucket, t) {
      if (t - lastSweep >= WINDOW_MS) {
        lastSweep = t;
        // Rows of ended windows carry nothing; every server trims them at most once a minute.
        await db.deleteFrom('rate_limit_windows').where('window_start', '<=', t - WINDOW_MS).execute();
      }
      const row = await db
        .insertInto('rate_limit_windows')
        .values({ bucket, window_start: t, count: 1 })
        .onConflict((oc) =>
          oc.column('bucket').doUpdateSet((eb) => {
            const ended = eb('rate_limit_windows.window_start', '<=', t - WINDOW_MS);
            return {
              count: eb.case().when(ended).then(1).else(eb('rate_limit_windows.count', '+', 1)).end(),
              window_start: eb.case().when(ended).then(t).else(eb.ref('rate_limit_windows.window_start')).end(),
            };
          }),
        )
        .returning(['window_start', 'count'])
        .executeTakeFirstOrThrow();
      return { start: Number(row.window_start), count: Number(row.count) };
    },
  };
}
