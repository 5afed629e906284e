import { sql, type Kysely } from 'kysely';
import { dialectOf } from '../database.js';

/**
 * PostgreSQL: keeps `fillfactor` percent of each new page of `table` for rows and the rest free for
 * new versions of them (HOT updates), or back to the default with `null`. SQLite has no such
 * setting and rewrites a row in place, so there it does nothing.
 */
export async function setFillfactor(db: Kysely<any>, table: string, fillfactor: number | null): Promise<void> {
  if (dialectOf(db).name !== 'postgres') return;
  if (fillfactor === null) await sql`alter table ${sql.table(table)} reset (fillfactor)`.execute(db);
  else await sql`alter table ${sql.table(table)} set (fillfactor = ${sql.lit(fillfactor)})`.execute(db);
}
