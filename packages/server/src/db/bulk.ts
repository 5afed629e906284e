import type { Insertable } from 'kysely';
import { dialectOf, type Db } from './database.js';
import type { Database as Schema } from './schema.js';

/**
 * Inserts many rows of one table (all with the same columns) in the fewest statements the dialect
 * allows; works on a transaction too. For bulk writes such as a batch of results.
 */
export function insertMany<T extends keyof Schema & string>(db: Db, table: T, rows: readonly Insertable<Schema[T]>[]): Promise<void> {
  return dialectOf(db).insertMany(db, table, rows as readonly Record<string, unknown>[]);
}
