import { sql, type Kysely } from 'kysely';
import { dialectOf, type MigrationTypes } from '../database.js';

const COLUMNS = {
  insight_case_days: 'project_id, day, branch, case_id, results, passed, failed, flaky, skipped, latest_test_id',
  insight_case_durations: 'project_id, day, branch, case_id, bucket, n, total_ms',
} as const;

/**
 * The insights aggregates (migration 017) written at the lowest cost per stored result, since every
 * result upserts a row of each (issue 27: ingestion with the upkeep within 10% of before):
 * - no foreign key on `case_id`, and no index for one: each insert checked (and on PostgreSQL
 *   share-locked) the test case, and the index was one more B-tree to write. A case's rows leave
 *   with its results (insights/upkeep.ts subtracts before runs are deleted, and a row at zero goes),
 *   which happens before the case itself is removed (runs/repo.ts); the reads name cases through
 *   `test_cases` and skip any row whose case is gone. The project keeps its cascade (the primary key
 *   leads with project_id, so it is indexed).
 * - on SQLite, `WITHOUT ROWID`: the primary key is the table, one B-tree instead of a table and its
 *   key index (measured in docs/benchmarks.md, "Issue 27: the upkeep's cost").
 */
export async function up(db: Kysely<any>, t: MigrationTypes): Promise<void> {
  if (dialectOf(db).name === 'postgres') {
    for (const table of Object.keys(COLUMNS)) {
      await sql`alter table ${sql.table(table)} drop constraint if exists ${sql.raw(`${table}_case_id_fkey`)}`.execute(db);
    }
  } else {
    await create(db, t, 'insight_case_days_lean', 'insight_case_durations_lean', true);
    for (const [table, columns] of Object.entries(COLUMNS)) {
      await sql`insert into ${sql.table(`${table}_lean`)} (${sql.raw(columns)}) select ${sql.raw(columns)} from ${sql.table(table)}`.execute(db);
      await sql`drop table ${sql.table(table)}`.execute(db);
      await sql`alter table ${sql.table(`${table}_lean`)} rename to ${sql.table(table)}`.execute(db);
    }
  }
  await sql`drop index if exists insight_case_days_case`.execute(db);
  await sql`drop index if exists insight_case_durations_case`.execute(db);
}

/** The tables of migration 017 (with `lean`, as above) on SQLite. */
async function create(db: Kysely<any>, t: MigrationTypes, days: string, durations: string, lean: boolean) {
  const caseRef = lean ? '' : ' references test_cases (id) on delete cascade';
  const without = lean ? ' without rowid' : '';
  await sql`create table ${sql.table(days)} (
    project_id text not null references projects (id) on delete cascade, day text not null, branch text not null,
    case_id text not null${sql.raw(caseRef)}, results integer not null, passed integer not null, failed integer not null,
    flaky integer not null, skipped integer not null, latest_test_id text not null,
    constraint insight_case_days_pk primary key (project_id, day, branch, case_id))${sql.raw(without)}`.execute(db);
  await sql`create table ${sql.table(durations)} (
    project_id text not null references projects (id) on delete cascade, day text not null, branch text not null,
    case_id text not null${sql.raw(caseRef)}, bucket integer not null, n integer not null, total_ms ${sql.raw(String(t.float))} not null,
    constraint insight_case_durations_pk primary key (project_id, day, branch, case_id, bucket))${sql.raw(without)}`.execute(db);
}

export async function down(db: Kysely<any>, t: MigrationTypes): Promise<void> {
  if (dialectOf(db).name === 'postgres') {
    for (const table of Object.keys(COLUMNS)) {
      await sql`alter table ${sql.table(table)} add constraint ${sql.raw(`${table}_case_id_fkey`)} foreign key (case_id) references test_cases (id) on delete cascade`.execute(db);
    }
  } else {
    await create(db, t, 'insight_case_days_old', 'insight_case_durations_old', false);
    for (const [table, columns] of Object.entries(COLUMNS)) {
      await sql`insert into ${sql.table(`${table}_old`)} (${sql.raw(columns)}) select ${sql.raw(columns)} from ${sql.table(table)}`.execute(db);
      await sql`drop table ${sql.table(table)}`.execute(db);
      await sql`alter table ${sql.table(`${table}_old`)} rename to ${sql.table(table)}`.execute(db);
    }
  }
  await db.schema.createIndex('insight_case_days_case').on('insight_case_days').column('case_id').execute();
  await db.schema.createIndex('insight_case_durations_case').on('insight_case_durations').column('case_id').execute();
}
