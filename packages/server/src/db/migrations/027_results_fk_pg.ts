import { sql, type Kysely } from 'kysely';
import { dialectOf } from '../database.js';

/** The stored results' foreign keys this migration replaces, with the parent each cascaded from. */
const CASCADES = [
  { constraint: 'tests_run_id_fkey', column: 'run_id', parent: 'runs' },
  { constraint: 'tests_case_id_fkey', column: 'case_id', parent: 'test_cases' },
] as const;

const functionOf = (parent: string) => `testreport_delete_tests_of_${parent}`;
const triggerOf = (parent: string) => `${parent}_delete_tests`;

/**
 * PostgreSQL only: a stored result's two foreign keys (its run, its test case) become a statement
 * trigger per parent, because PostgreSQL checks a foreign key by a query and a share lock per
 * inserted row: two per result, 13% of PostgreSQL's CPU per batched result (docs/benchmarks.md).
 * - Deleting runs or test cases still deletes their results, in the same statement's end as the
 *   cascade did: an `AFTER DELETE … FOR EACH STATEMENT` trigger deletes the results of the deleted
 *   rows (its transition table) through the `tests_run` and `tests_case_window` indexes. That
 *   covers every way a run or case goes: the API, retention, a project's or team's cascade.
 * - Storing results checks the same as the keys did, once per batch: the batch share-locks its runs
 *   (results/repo.ts `keepRuns`), so a run deleted meanwhile fails the batch with a 400 and a
 *   deletion after the lock waits for the batch's commit, then takes its results with it; each
 *   result's case is upserted, and so locked, by the same transaction.
 * SQLite's foreign keys stay: there a check is an index probe in the server's own process.
 */
export async function up(db: Kysely<any>): Promise<void> {
  if (dialectOf(db).name !== 'postgres') return;
  for (const { constraint, column, parent } of CASCADES) {
    await sql`alter table tests drop constraint if exists ${sql.ref(constraint)}`.execute(db);
    await sql`create or replace function ${sql.ref(functionOf(parent))}() returns trigger language plpgsql as $$
      begin
        delete from tests where ${sql.ref(column)} in (select id from gone);
        return null;
      end $$`.execute(db);
    await sql`drop trigger if exists ${sql.ref(triggerOf(parent))} on ${sql.table(parent)}`.execute(db);
    await sql`create trigger ${sql.ref(triggerOf(parent))} after delete on ${sql.table(parent)} referencing old table as gone
      for each statement execute function ${sql.ref(functionOf(parent))}()`.execute(db);
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  if (dialectOf(db).name !== 'postgres') return;
  for (const { constraint, column, parent } of CASCADES) {
    await sql`drop trigger if exists ${sql.ref(triggerOf(parent))} on ${sql.table(parent)}`.execute(db);
    await sql`drop function if exists ${sql.ref(functionOf(parent))}()`.execute(db);
    // Results whose parent went by other means than the server's would fail the key.
    await sql`delete from tests t where not exists (select 1 from ${sql.table(parent)} p where p.id = t.${sql.ref(column)})`.execute(db);
    await sql`alter table tests add constraint ${sql.ref(constraint)} foreign key (${sql.ref(column)}) references ${sql.table(parent)}(id) on delete cascade`.execute(db);
  }
}
