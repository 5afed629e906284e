import { sql, type Kysely } from 'kysely';
import { dialectOf } from '../database.js';

/**
 * The foreign keys this migration replaces, by the parent each cascaded from: a result's run and
 * case, and the search index's copy of a new case's title (written once per new case, by the batch
 * that creates it, which holds the case's row).
 */
const CASCADES = [
  { parent: 'runs', children: [{ table: 'tests', column: 'run_id', constraint: 'tests_run_id_fkey' }] },
  {
    parent: 'test_cases',
    children: [
      { table: 'tests', column: 'case_id', constraint: 'tests_case_id_fkey' },
      { table: 'cases_search', column: 'case_id', constraint: 'cases_search_case_id_fkey' },
    ],
  },
] as const;

const functionOf = (parent: string) => `testreport_delete_children_of_${parent}`;
const triggerOf = (parent: string) => `${parent}_delete_children`;

/**
 * PostgreSQL only: foreign keys a batch checked row by row become a statement trigger per parent,
 * because PostgreSQL checks a foreign key by a query and a share lock per inserted row. A result had
 * two (its run, its case): 13% of PostgreSQL's CPU per batched result; a new case's title in the
 * search index one more (docs/benchmarks.md).
 * - Deleting runs or test cases still deletes what hangs from them, at the end of the same
 *   statement as the cascade did: an `AFTER DELETE … FOR EACH STATEMENT` trigger deletes the rows
 *   of the deleted parents (its transition table) through the children's indexes. That covers
 *   every way a run or case goes: the API, retention, a project's or team's cascade.
 * - Storing results checks the same as the keys did, once per batch: the batch share-locks its runs
 *   (results/repo.ts `lockRuns`), so a run deleted meanwhile fails the batch with a 400 and a
 *   deletion after the lock waits for the batch's commit, then takes its results with it; each
 *   result's case is upserted, and so locked, by the same transaction, which also indexes a new
 *   case's title.
 * SQLite's foreign keys stay: there a check is an index probe in the server's own process.
 */
export async function up(db: Kysely<any>): Promise<void> {
  if (dialectOf(db).name !== 'postgres') return;
  for (const { parent, children } of CASCADES) {
    for (const c of children) await sql`alter table ${sql.table(c.table)} drop constraint if exists ${sql.ref(c.constraint)}`.execute(db);
    // `= any(array(…))`: the ids as one array probe the child's index per id. `in (select id from
    // gone)` planned a nested loop of bitmap scans, 3.5 times slower than the cascade it replaces
    // for 1,000 parents of 1,000 rows each; this form was as fast (docs/benchmarks.md).
    const deletes = children.map((c) => sql`delete from ${sql.table(c.table)} where ${sql.ref(c.column)} = any (array(select id from gone));`);
    await sql`create or replace function ${sql.ref(functionOf(parent))}() returns trigger language plpgsql as $$
      begin
        ${sql.join(deletes, sql` `)}
        return null;
      end $$`.execute(db);
    await sql`drop trigger if exists ${sql.ref(triggerOf(parent))} on ${sql.table(parent)}`.execute(db);
    await sql`create trigger ${sql.ref(triggerOf(parent))} after delete on ${sql.table(parent)} referencing old table as gone
      for each statement execute function ${sql.ref(functionOf(parent))}()`.execute(db);
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  if (dialectOf(db).name !== 'postgres') return;
  for (const { parent, children } of CASCADES) {
    await sql`drop trigger if exists ${sql.ref(triggerOf(parent))} on ${sql.table(parent)}`.execute(db);
    await sql`drop function if exists ${sql.ref(functionOf(parent))}()`.execute(db);
    for (const c of children) {
      // Rows whose parent went by other means than the server's would fail the key.
      await sql`delete from ${sql.table(c.table)} t where not exists (select 1 from ${sql.table(parent)} p where p.id = t.${sql.ref(c.column)})`.execute(db);
      await sql`alter table ${sql.table(c.table)} add constraint ${sql.ref(c.constraint)} foreign key (${sql.ref(c.column)}) references ${sql.table(parent)}(id) on delete cascade`.execute(db);
    }
  }
}
