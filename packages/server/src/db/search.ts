import type { Kysely, RawBuilder, SelectQueryBuilder } from 'kysely';
import { dialectOf } from './database.js';
import type { Database } from './schema.js';

/** The stored columns of `tests` each searchable field (contract `SEARCH_FIELDS`) covers besides titles. */
export const RESULT_SEARCH_COLUMNS = {
  errors: ['error_message'],
  output: ['stdout', 'stderr'],
} as const satisfies Record<string, readonly string[]>;
export type SearchColumn = (typeof RESULT_SEARCH_COLUMNS)[keyof typeof RESULT_SEARCH_COLUMNS][number];

/**
 * The text index of `GET /search` (docs/insights.md "Search"), in two parts since migration 018:
 * - titles are indexed once per **test case** (`test_cases.full_title`): a case is its project, file
 *   and full title, so every result of a case has the case's title, and indexing it per result
 *   (migration 015) tokenized the same text at every run — most of ingestion's cost (issue 27);
 * - error messages and output are indexed per result, only for results that have any.
 * SQLite: FTS5 trigram tables kept by triggers; PostgreSQL: pg_trgm GIN indexes. Both find any
 * substring of three or more characters, ignoring case, so a search means the same on either.
 */
export interface SearchSupport {
  /** Builds the index over what is stored and keeps it current from then on (migration 018). */
  create(db: Kysely<any>): Promise<void>;
  drop(db: Kysely<any>): Promise<void>;
  /**
   * Adds what was just inserted to the index, in the inserting transaction: test cases by id (new
   * ones only) and results by id (those without error message and output may be included; they
   * are skipped). Every insert into `test_cases` and `tests` must come through here.
   */
  indexInserted(db: Kysely<any>, inserted: { cases: string[]; results: string[] }): Promise<void>;
  /** Migration 015's index (every column of every result), kept so that migration replays as it did. */
  readonly v1: { create(db: Kysely<any>): Promise<void>; drop(db: Kysely<any>): Promise<void> };
  /** The ids of the project's test cases whose full title contains `text`. */
  casesMatching(db: Kysely<Database>, projectId: string, text: string): SelectQueryBuilder<Database, 'test_cases', { id: string }>;
  /**
   * `tests.case_id` is one of `caseIds`, written so that the planner walks the results newest first
   * and stops at the page rather than gathering every result of every case and sorting them (used
   * when many cases match, so matches are dense among the newest results).
   */
  ofManyCases(caseIds: SelectQueryBuilder<Database, 'test_cases', { id: string }>): RawBuilder<boolean>;
  /**
   * The rows of `tests` whose `columns` contain `text`, and the order that lists them newest first
   * *from the index*, so that a page (and a capped count) reads only as many matches as it needs
   * instead of every match of a common text (docs/benchmarks.md, issue 27). Columns of `tests` are
   * to be named `tests.…` on it (the index may bring columns of the same names).
   */
  resultsMatching(db: Kysely<Database>, columns: readonly SearchColumn[], text: string): { rows: SelectQueryBuilder<Database, 'tests', object>; newestFirst: RawBuilder<unknown> };
}

/** Repositories ask through these; which index answers is the dialect's business. */
export const searchIndexInserted = (db: Kysely<Database>, inserted: { cases: string[]; results: string[] }) => dialectOf(db).search.indexInserted(db, inserted);
export const searchCases = (db: Kysely<Database>, projectId: string, text: string) => dialectOf(db).search.casesMatching(db, projectId, text);
export const searchOfManyCases = (db: Kysely<Database>, caseIds: SelectQueryBuilder<Database, 'test_cases', { id: string }>) => dialectOf(db).search.ofManyCases(caseIds);
export const searchResults = (db: Kysely<Database>, columns: readonly SearchColumn[], text: string) => dialectOf(db).search.resultsMatching(db, columns, text);
