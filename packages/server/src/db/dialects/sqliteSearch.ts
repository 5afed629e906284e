import { sql } from 'kysely';
import type { SelectQueryBuilder } from 'kysely';
import type { Database } from '../schema.js';
import type { SearchColumn, SearchSupport } from '../search.js';

const COLUMNS = ['full_title', 'error_message', 'stdout', 'stderr'] as const;
/** An FTS5 phrase (double quotes, inner quotes doubled) is taken literally; `{a b} :` limits it to those columns. */
const phrase = (columns: readonly SearchColumn[], text: string) => `{${columns.join(' ')}} : "${text.replace(/"/g, '""')}"`;
const list = (prefix: string) => sql.raw(COLUMNS.map((c) => `${prefix}${c}`).join(', '));

/**
 * An external-content FTS5 table (`tests_search`) over the columns of `tests`, tokenized in trigrams
 * so that any substring of three or more characters is found (a `unicode61` index would find
 * "ECONNRESET" but not "CONNRESET" or "/api/ord"). It stores only the index, not a second copy of
 * the text. Triggers keep it in step with every insert, update and delete, so ingestion needs no
 * change and retention's deletes take the rows out of it.
 *
 * External content is keyed by `tests.rowid`; the server never runs VACUUM, which could renumber
 * the rowids of a table without an INTEGER PRIMARY KEY (`insert into tests_search(tests_search)
 * values('rebuild')` repairs the index if someone does).
 */
export const sqliteSearch: SearchSupport = {
  async create(db) {
    await sql`create virtual table tests_search using fts5(${list('')}, content='tests', tokenize='trigram')`.execute(db);
    await sql`insert into tests_search(tests_search) values('rebuild')`.execute(db);
    await sql`create trigger tests_search_insert after insert on tests begin
      insert into tests_search(rowid, ${list('')}) values (new.rowid, ${list('new.')}); end`.execute(db);
    await sql`create trigger tests_search_delete after delete on tests begin
      insert into tests_search(tests_search, rowid, ${list('')}) values ('delete', old.rowid, ${list('old.')}); end`.execute(db);
    await sql`create trigger tests_search_update after update of ${list('')} on tests begin
      insert into tests_search(tests_search, rowid, ${list('')}) values ('delete', old.rowid, ${list('old.')});
      insert into tests_search(rowid, ${list('')}) values (new.rowid, ${list('new.')}); end`.execute(db);
  },
  async drop(db) {
    for (const t of ['insert', 'delete', 'update']) await sql`drop trigger if exists ${sql.raw(`tests_search_${t}`)}`.execute(db);
    await sql`drop table if exists tests_search`.execute(db);
  },
  contains(columns, text) {
    return sql<boolean>`tests.rowid in (select rowid from tests_search where tests_search match ${phrase(columns, text)})`;
  },
  matching(db, columns, text) {
    // The FTS5 table drives, in descending rowid order, which it yields without collecting every
    // match first: `rowid in (select … match …)` built the whole list of a common text's matches
    // (a tenth of 10,000,000 results) before the first row of a page. Rowids follow insertion
    // order, which is id order on a SQLite file (one server assigns time-ordered ids as it stores).
    const rows = db
      .selectFrom(sql`tests_search`.as('s'))
      .innerJoin('tests', (join) => join.on(sql`tests.rowid`, '=', sql`s.rowid`))
      .where(sql<boolean>`s.tests_search match ${phrase(columns, text)}`) as unknown as SelectQueryBuilder<Database, 'tests', object>;
    return { rows, newestFirst: sql`s.rowid` };
  },
};
