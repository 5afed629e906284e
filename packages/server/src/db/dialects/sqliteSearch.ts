import { sql } from 'kysely';
import type { Kysely, SelectQueryBuilder } from 'kysely';
import { chunk, IN_LIST_CHUNK } from '../chunk.js';
import type { Database } from '../schema.js';
import type { SearchColumn, SearchSupport } from '../search.js';

const RESULT_COLUMNS = ['error_message', 'stdout', 'stderr'] as const;
/** An FTS5 phrase (double quotes, inner quotes doubled) is taken literally; `{a b} :` limits it to those columns. */
const phrase = (columns: readonly string[], text: string) => `{${columns.join(' ')}} : "${text.replace(/"/g, '""')}"`;
const list = (columns: readonly string[], prefix = '') => sql.raw(columns.map((c) => `${prefix}${c}`).join(', '));
const anyOf = (columns: readonly string[], prefix: string) => sql.raw(columns.map((c) => `${prefix}${c} is not null`).join(' or '));

/**
 * External-content FTS5 tables tokenized in trigrams, so that any substring of three or more
 * characters is found (a `unicode61` index would find "ECONNRESET" but not "CONNRESET" or
 * "/api/ord"). They store only the index, not a second copy of the text. Triggers keep them in step
 * with updates and deletes (retention's deletes take rows out in their transaction); inserts are
 * indexed by `indexInserted`, called by the repository that stores them, in the same transaction:
 * an AFTER INSERT trigger, even one whose WHEN is false, cost ≈ 15–20 µs of CPU per inserted row
 * (docs/benchmarks.md, issue 27) — a third of a result's whole insert.
 * - `cases_search` over `test_cases.full_title`: written once per new test case;
 * - `tests_search` over a result's error message, stdout and stderr, for results that have one of
 *   them (a passing test without output costs nothing). A result is in the index exactly when one
 *   of the three is not null, and FTS5's 'delete' is given the values it was indexed with: the
 *   triggers' conditions and `indexInserted` must agree.
 *
 * External content is keyed by rowid; the server never runs VACUUM, which could renumber the rowids
 * of a table without an INTEGER PRIMARY KEY (`insert into tests_search(tests_search) values('rebuild')`
 * would then index every result, including those without text: repair with `drop` + `create`).
 */
async function createCases(db: Kysely<any>) {
  await sql`create virtual table cases_search using fts5(full_title, content='test_cases', tokenize='trigram')`.execute(db);
  await sql`insert into cases_search(cases_search) values('rebuild')`.execute(db);
  await sql`create trigger cases_search_delete after delete on test_cases begin
    insert into cases_search(cases_search, rowid, full_title) values ('delete', old.rowid, old.full_title); end`.execute(db);
  await sql`create trigger cases_search_update after update of full_title on test_cases begin
    insert into cases_search(cases_search, rowid, full_title) values ('delete', old.rowid, old.full_title);
    insert into cases_search(rowid, full_title) values (new.rowid, new.full_title); end`.execute(db);
}

async function createResults(db: Kysely<any>) {
  const c = RESULT_COLUMNS;
  await sql`create virtual table tests_search using fts5(${list(c)}, content='tests', tokenize='trigram')`.execute(db);
  await sql`insert into tests_search(rowid, ${list(c)}) select rowid, ${list(c)} from tests where ${anyOf(c, '')}`.execute(db);
  await sql`create trigger tests_search_delete after delete on tests when ${anyOf(c, 'old.')} begin
    insert into tests_search(tests_search, rowid, ${list(c)}) values ('delete', old.rowid, ${list(c, 'old.')}); end`.execute(db);
  await sql`create trigger tests_search_update after update of ${list(c)} on tests begin
    insert into tests_search(tests_search, rowid, ${list(c)}) select 'delete', old.rowid, ${list(c, 'old.')} where ${anyOf(c, 'old.')};
    insert into tests_search(rowid, ${list(c)}) select new.rowid, ${list(c, 'new.')} where ${anyOf(c, 'new.')}; end`.execute(db);
}

async function dropIndex(db: Kysely<any>, table: string) {
  for (const t of ['insert', 'delete', 'update']) await sql`drop trigger if exists ${sql.raw(`${table}_${t}`)}`.execute(db);
  await sql`drop table if exists ${sql.raw(table)}`.execute(db);
}

/** Migration 015's form: one table over title, error, stdout and stderr of every result. */
const V1_COLUMNS = ['full_title', 'error_message', 'stdout', 'stderr'] as const;
const v1 = {
  async create(db: Kysely<any>) {
    const c = V1_COLUMNS;
    await sql`create virtual table tests_search using fts5(${list(c)}, content='tests', tokenize='trigram')`.execute(db);
    await sql`insert into tests_search(tests_search) values('rebuild')`.execute(db);
    await sql`create trigger tests_search_insert after insert on tests begin
      insert into tests_search(rowid, ${list(c)}) values (new.rowid, ${list(c, 'new.')}); end`.execute(db);
    await sql`create trigger tests_search_delete after delete on tests begin
      insert into tests_search(tests_search, rowid, ${list(c)}) values ('delete', old.rowid, ${list(c, 'old.')}); end`.execute(db);
    await sql`create trigger tests_search_update after update of ${list(c)} on tests begin
      insert into tests_search(tests_search, rowid, ${list(c)}) values ('delete', old.rowid, ${list(c, 'old.')});
      insert into tests_search(rowid, ${list(c)}) values (new.rowid, ${list(c, 'new.')}); end`.execute(db);
  },
  drop: (db: Kysely<any>) => dropIndex(db, 'tests_search'),
};

export const sqliteSearch: SearchSupport = {
  async indexInserted(db, { cases, results }) {
    for (const ids of chunk(cases, IN_LIST_CHUNK)) {
      await sql`insert into cases_search(rowid, full_title) select rowid, full_title from test_cases where id in (${sql.join(ids)})`.execute(db);
    }
    for (const ids of chunk(results, IN_LIST_CHUNK)) {
      await sql`insert into tests_search(rowid, ${list(RESULT_COLUMNS)}) select rowid, ${list(RESULT_COLUMNS)} from tests where id in (${sql.join(ids)}) and (${anyOf(RESULT_COLUMNS, '')})`.execute(db);
    }
  },
  async create(db) {
    await createCases(db);
    await createResults(db);
  },
  async drop(db) {
    await dropIndex(db, 'tests_search');
    await dropIndex(db, 'cases_search');
  },
  v1,
  casesMatching(db, projectId, text) {
    return db
      .selectFrom('test_cases')
      .select('test_cases.id')
      .where('test_cases.project_id', '=', projectId)
      .where(sql<boolean>`test_cases.rowid in (select rowid from cases_search where cases_search match ${phrase(['full_title'], text)})`);
  },
  // The unary plus keeps SQLite from answering by the case index (every result of those cases, then
  // a sort): it walks tests_project (project_id, id) backwards instead and stops at the page.
  ofManyCases: (caseIds) => sql<boolean>`+tests.case_id in (${caseIds})`,
  resultsMatching(db, columns: readonly SearchColumn[], text) {
    // The FTS5 table drives, in descending rowid order, which it yields without collecting every
    // match first: `rowid in (select … match …)` built the whole list of a common text's matches
    // before the first row of a page. Rowids follow insertion order, which is id order on a SQLite
    // file (one server assigns time-ordered ids as it stores).
    const rows = db
      .selectFrom(sql`tests_search`.as('s'))
      .innerJoin('tests', (join) => join.on(sql`tests.rowid`, '=', sql`s.rowid`))
      .where(sql<boolean>`s.tests_search match ${phrase(columns, text)}`) as unknown as SelectQueryBuilder<Database, 'tests', object>;
    return { rows, newestFirst: sql`s.rowid` };
  },
};
