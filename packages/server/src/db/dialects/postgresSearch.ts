import { executeLater } from '../later.js';
import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import { chunk, IN_LIST_CHUNK } from '../chunk.js';
import type { SearchSupport } from '../search.js';
import { containsIgnoringCase } from '../text.js';

const RESULT_COLUMNS = ['error_message', 'stdout', 'stderr'] as const;
const V1_COLUMNS = ['full_title', 'error_message', 'stdout', 'stderr'] as const;

/**
 * pg_trgm GIN indexes on `lower(column)`, the expression `containsIgnoringCase` compares, so a
 * search is `lower(col) like lower('%text%')` answered from the index (a bitmap OR over the columns
 * asked for). Trigrams rather than tsvector because a search is for any substring — an error code,
 * a URL path, half an identifier — not for words with stemming, and so it finds what SQLite's FTS5
 * trigram index finds. pg_trgm ships with PostgreSQL and is a trusted extension (13+): the owner of
 * the database may create it.
 *
 * Since migration 018 titles are indexed once per test case, in a table of their own
 * (`cases_search`: case id, project, title, written when a case is created and never updated): a
 * trigram index on `test_cases` itself was rewritten at every run, because the case upsert's update
 * is not HOT (it changes the indexed `stats_dirty`, and the page is full), so each update added the
 * title's ~80 trigram entries again (measured in docs/benchmarks.md). A result's error/output indexes
 * are partial (`where col is not null`): a result without text adds nothing to them (a GIN index
 * otherwise keeps an entry for every NULL). Queries repeat the `is not null` so that the planner can
 * use the partial indexes.
 */
export const postgresSearch: SearchSupport = {
  // The results' indexes are the table's own; a new case's title is copied into cases_search.
  async indexInserted(db, { cases }) {
    for (const ids of chunk(cases, IN_LIST_CHUNK)) {
      await executeLater(db, sql`insert into cases_search (case_id, project_id, full_title) select id, project_id, full_title from test_cases where id in (${sql.join(ids)})`.compile(db));
    }
  },
  async create(db) {
    await sql`create extension if not exists pg_trgm`.execute(db);
    await sql`create table cases_search (case_id text primary key references test_cases (id) on delete cascade, project_id text not null, full_title text not null)`.execute(db);
    await sql`insert into cases_search (case_id, project_id, full_title) select id, project_id, full_title from test_cases`.execute(db);
    await sql`create index cases_search_full_title on cases_search using gin (lower(full_title) gin_trgm_ops)`.execute(db);
    for (const c of RESULT_COLUMNS) {
      await sql`create index ${sql.raw(`tests_search_${c}`)} on tests using gin (lower(${sql.ref(c)}) gin_trgm_ops) where ${sql.ref(c)} is not null`.execute(db);
    }
  },
  async drop(db) {
    await sql`drop table if exists cases_search`.execute(db);
    for (const c of RESULT_COLUMNS) await sql`drop index if exists ${sql.raw(`tests_search_${c}`)}`.execute(db);
  },
  v1: {
    async create(db: Kysely<any>) {
      await sql`create extension if not exists pg_trgm`.execute(db);
      for (const c of V1_COLUMNS) await sql`create index ${sql.raw(`tests_search_${c}`)} on tests using gin (lower(${sql.ref(c)}) gin_trgm_ops)`.execute(db);
    },
    async drop(db: Kysely<any>) {
      for (const c of V1_COLUMNS) await sql`drop index if exists ${sql.raw(`tests_search_${c}`)}`.execute(db);
    },
  },
  casesMatching(db, projectId, text) {
    const titled = sql<boolean>`test_cases.id in (select case_id from cases_search where project_id = ${projectId} and ${containsIgnoringCase('full_title', text)})`;
    return db.selectFrom('test_cases').select('test_cases.id').where('test_cases.project_id', '=', projectId).where(titled);
  },
  ofManyCases: (caseIds) => sql<boolean>`tests.case_id in (${caseIds})`,
  resultsMatching(db, columns, text) {
    const any = columns.map((c) => sql<boolean>`(${sql.ref(`tests.${c}`)} is not null and ${containsIgnoringCase(`tests.${c}`, text)})`);
    return { rows: db.selectFrom('tests').where(sql<boolean>`(${sql.join(any, sql` or `)})`), newestFirst: sql`tests.id` };
  },
};
