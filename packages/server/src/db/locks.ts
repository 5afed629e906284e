import { dialectOf, type Db } from './database.js';

/**
 * Runs `work` on one server at a time across every server sharing the database (on PostgreSQL a
 * transaction-scoped advisory lock; SQLite has one server). Another server already running it
 * makes this a no-op that resolves false: periodic jobs simply skip their turn.
 */
export async function runExclusive(db: Db, lock: string, work: () => Promise<unknown>): Promise<boolean> {
  const r = await dialectOf(db).exclusive(db, lock, work);
  return r.ran;
}

/** Holds `lock` until the current transaction ends, waiting for other holders (`DialectSupport.lockForTransaction`). */
export const lockForTransaction = (db: Db, lock: string): Promise<void> => dialectOf(db).lockForTransaction(db, lock);

/** Whether several servers may share this database (see `DialectSupport.sharedByServers`). */
export const sharedByServers = (db: Db): boolean => dialectOf(db).sharedByServers;
