import { sql, type Kysely } from 'kysely';
import { dialectOf } from '../database.js';

/** PostgreSQL's aggregate laying byteas end to end (insights/rollup.ts), made here. */
export const BYTEA_CAT = 'testreport_bytea_cat';

const FOREIGN_KEYS = [
  { table: 'insight_pending', constraint: 'insight_pending_project_id_fkey' },
  { table: 'insight_rollups', constraint: 'insight_rollups_project_id_fkey' },
] as const;

/**
 * PostgreSQL only: the insights aggregates' own costs (issue 27, ingestion within 10% of what it
 * was before them; docs/benchmarks.md).
 * - `insight_pending` and `insight_rollups` lose their foreign key to `projects`. PostgreSQL checks
 *   one by a query per inserted row, which locks the project's row (3.2 µs per pending row, one per
 *   stored result, and as much per rollup row a fold creates). Only the upkeep of a project's own
 *   results, the rebuild and the fold write these tables; deleting a project or a team deletes
 *   their rows itself (insights/forgetProjects.ts), after the projects' rows, so no batch can
 *   still add any.
 *   SQLite's check is an index probe and stayed (migration 028 drops the pending rows' key for
 *   another reason).
 * - An aggregate laying byteas end to end for the fold's grouping of pending rows: `string_agg`
 *   keeps a growable buffer of 1 KB per group, and with 10,000 groups of a few 14-byte histograms
 *   each it took 210 ms per 40,000 pending rows against 105 ms with this.
 */
export async function up(db: Kysely<any>): Promise<void> {
  if (dialectOf(db).name !== 'postgres') return;
  for (const { table, constraint } of FOREIGN_KEYS) await sql`alter table ${sql.table(table)} drop constraint if exists ${sql.ref(constraint)}`.execute(db);
  await sql`create or replace aggregate ${sql.ref(BYTEA_CAT)}(bytea) (sfunc = byteacat, stype = bytea, initcond = '')`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  if (dialectOf(db).name !== 'postgres') return;
  await sql`drop aggregate if exists ${sql.ref(BYTEA_CAT)}(bytea)`.execute(db);
  for (const { table, constraint } of FOREIGN_KEYS) {
    // Rows of projects deleted meanwhile by other means than the server's would fail the check.
    await sql`delete from ${sql.table(table)} t where not exists (select 1 from projects p where p.id = t.project_id)`.execute(db);
    await sql`alter table ${sql.table(table)} add constraint ${sql.ref(constraint)} foreign key (project_id) references projects(id) on delete cascade`.execute(db);
  }
}
