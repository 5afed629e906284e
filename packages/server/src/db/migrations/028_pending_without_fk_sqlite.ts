import { sql, type Kysely } from 'kysely';
import { dialectOf } from '../database.js';

const COLUMNS = 'id, project_id, day, branch, case_id, results, passed, failed, flaky, skipped, latest_test_id, histogram';

/** `insight_pending` as migration 022 made it, with or without its foreign key to `projects`. */
const tableSql = (name: string, withForeignKey: boolean) => sql`create table ${sql.table(name)} (
  id integer primary key,
  project_id text not null${withForeignKey ? sql` references projects (id) on delete cascade` : sql``},
  day text not null, branch text not null, case_id text not null,
  results integer not null, passed integer not null, failed integer not null, flaky integer not null, skipped integer not null,
  latest_test_id text not null, histogram blob not null)`;

/**
 * SQLite cannot drop a column's constraint: the table is made again and its rows copied over, in one
 * transaction (Kysely runs SQLite's migrations outside one), so a crash midway leaves the old table.
 */
async function rebuild(db: Kysely<any>, withForeignKey: boolean): Promise<void> {
  const steps = async (trx: Kysely<any>) => {
    await tableSql('insight_pending_next', withForeignKey).execute(trx);
    await sql`insert into insight_pending_next (${sql.raw(COLUMNS)}) select ${sql.raw(COLUMNS)} from insight_pending`.execute(trx);
    await sql`drop table insight_pending`.execute(trx);
    await sql`alter table insight_pending_next rename to insight_pending`.execute(trx);
  };
  await (db.isTransaction ? steps(db) : db.transaction().execute(steps));
}

/**
 * SQLite only: `insight_pending` loses its foreign key to `projects`, as PostgreSQL's did in
 * migration 026, so that a fold taking every pending row can empty the table with an unconditional
 * `DELETE`, which SQLite answers by freeing the table's pages. With `foreign_keys = ON` SQLite
 * does that for no table that is part of a foreign key, child or parent; the fold then deleted
 * 40,000 rows one by one, 28–35 ms of CPU and 6 MB of WAL to write and checkpoint, against 2 ms
 * and no WAL (docs/benchmarks.md). Deleting a project or a team deletes its pending rows itself
 * (insights/forgetProjects.ts), after the projects' rows, so no batch can still add any.
 */
export async function up(db: Kysely<any>): Promise<void> {
  if (dialectOf(db).name !== 'sqlite') return;
  await rebuild(db, false);
}

export async function down(db: Kysely<any>): Promise<void> {
  if (dialectOf(db).name !== 'sqlite') return;
  // Rows of projects deleted meanwhile by other means than the server's would fail the key.
  await sql`delete from insight_pending where project_id not in (select id from projects)`.execute(db);
  await rebuild(db, true);
}
