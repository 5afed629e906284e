import { sql, type Kysely, type RawBuilder } from 'kysely';
import { dialectOf } from '../database.js';

/**
 * Columns that keep the database's collation: each is searched through a pg_trgm index on
 * `lower(column)` (db/dialects/postgresSearch.ts), and `lower` folds only ASCII under "C".
 * None is compared with another column, so none is in a join whose index a collation could lose.
 */
export const SEARCHED_COLUMNS = ['tests.error_message', 'tests.stdout', 'tests.stderr', 'cases_search.full_title'];

/**
 * PostgreSQL only: every other text column compares by bytes (`COLLATE "C"`), as SQLite's BINARY
 * does. Under the database's locale (C.UTF-8, en_US.UTF-8, …) each B-tree comparison of a text key
 * went through `strcoll`: ids, titles and paths of the eleven indexes a stored result enters cost
 * 7–10% of PostgreSQL's CPU per batched result (docs/benchmarks.md, twenty-ninth session).
 *
 * All of them at once, because PostgreSQL uses an index for a comparison only under the index's
 * collation: a join of a "C" column with a column left under the locale would lose its index. For
 * UTF-8 text, byte order is code point order, which C.UTF-8 sorts by too; under another locale
 * titles and names now sort as on SQLite (capitals first). Equality is unchanged (both collations
 * are deterministic). Only indexes are rebuilt, no table is rewritten: 116 s for a database of
 * 10,000,000 results (20 GB).
 */
export async function up(db: Kysely<any>): Promise<void> {
  if (dialectOf(db).name !== 'postgres') return;
  const searched = sql`and (c.table_name || '.' || c.column_name) <> all (${SEARCHED_COLUMNS})`;
  await recollate(db, sql`c.collation_name is distinct from 'C' ${searched}`, 'C');
}

export async function down(db: Kysely<any>): Promise<void> {
  if (dialectOf(db).name !== 'postgres') return;
  await recollate(db, sql`c.collation_name = 'C'`, 'default');
}

/** Gives every text column of our tables that `which` picks the collation `to`, a table at a time. */
async function recollate(db: Kysely<any>, which: RawBuilder<unknown>, to: 'C' | 'default'): Promise<void> {
  const { rows } = await sql<{ table_name: string; columns: string[] }>`
    select c.table_name, array_agg(c.column_name::text order by c.ordinal_position) as columns
    from information_schema.columns c
    join information_schema.tables t on t.table_schema = c.table_schema and t.table_name = c.table_name
    where c.table_schema = current_schema() and t.table_type = 'BASE TABLE' and c.data_type = 'text'
      and c.table_name not like 'kysely%' and ${which}
    group by c.table_name order by c.table_name`.execute(db);
  for (const { table_name, columns } of rows) {
    const changes = columns.map((c) => sql`alter column ${sql.ref(c)} type text collate ${sql.id(to)}`);
    await sql`alter table ${sql.table(table_name)} ${sql.join(changes)}`.execute(db);
    // Changing a column's type drops its statistics, and autovacuum analyzes a table only after
    // enough writes: without them the planner took a sequential scan for every text search (1 s
    // instead of 30 ms at 10,000,000 results). A sample: 1.8 s for the whole database there.
    await sql`analyze ${sql.table(table_name)}`.execute(db);
  }
}
