import { sql } from 'kysely';
import type { Kysely } from 'kysely';
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
 * Since migration 018 titles are indexed on `test_cases` (one row per case, not per result), and a
 * result's error/output indexes are partial (`where col is not null`): a result without text adds
 * nothing to them (a GIN index otherwise keeps an entry for every NULL). Queries repeat the
 * `is not null` so that the planner can use the partial indexes.
 */
export const postgresSearch: SearchSupport = {
  // The indexes are the tables' own.
  indexInserted: async () => {},
  async create(db) {
    await sql`create extension if not exists pg_trgm`.execute(db);
    await sql`create index cases_search_full_title on test_cases using gin (lower(full_title) gin_trgm_ops)`.execute(db);
    for (const c of RESULT_COLUMNS) {
      await sql`create index ${sql.raw(`tests_search_${c}`)} on tests using gin (lower(${sql.ref(c)}) gin_trgm_ops) where ${sql.ref(c)} is not null`.execute(db);
    }
  },
  async drop(db) {
    await sql`drop index if exists cases_search_full_title`.execute(db);
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
    return db.selectFrom('test_cases').select('test_cases.id').where('test_cases.project_id', '=', projectId).where(containsIgnoringCase('test_cases.full_title', text));
  },
  ofManyCases: (caseIds) => sql<boolean>`tests.case_id in (${caseIds})`,
  resultsMatching(db, columns, text) {
    const any = columns.map((c) => sql<boolean>`(${sql.ref(`tests.${c}`)} is not null and ${containsIgnoringCase(`tests.${c}`, text)})`);
    return { rows: db.selectFrom('tests').where(sql<boolean>`(${sql.join(any, sql` or `)})`), newestFirst: sql`tests.id` };
  },
};
