import type { Kysely, RawBuilder, SelectQueryBuilder } from 'kysely';
import { dialectOf } from './database.js';
import type { Database } from './schema.js';

/** The stored columns each searchable field (contract `SEARCH_FIELDS`) covers. */
export const SEARCH_COLUMNS = {
  titles: ['full_title'],
  errors: ['error_message'],
  output: ['stdout', 'stderr'],
} as const satisfies Record<string, readonly string[]>;
export type SearchColumn = (typeof SEARCH_COLUMNS)[keyof typeof SEARCH_COLUMNS][number];

/**
 * The text index over test results (docs/insights.md "Search"): SQLite an FTS5 trigram table kept by
 * triggers, PostgreSQL pg_trgm GIN indexes. Both find any substring of three or more characters,
 * ignoring case, so a search means the same on either database.
 */
export interface SearchSupport {
  /** Builds the index over what is stored and keeps it current from then on (migration 015). */
  create(db: Kysely<any>): Promise<void>;
  drop(db: Kysely<any>): Promise<void>;
  /** A condition on a row of `tests`: one of `columns` contains `text` (case-insensitive, literally). */
  contains(columns: readonly SearchColumn[], text: string): RawBuilder<boolean>;
  /**
   * The rows of `tests` whose `columns` contain `text`, and the order that lists them newest first
   * *from the index*, so that a page (and a capped count) reads only as many matches as it needs
   * instead of every match of a common text (docs/benchmarks.md, issue 27). Columns of `tests` are
   * to be named `tests.…` on it (the index may bring columns of the same names).
   */
  matching(db: Kysely<Database>, columns: readonly SearchColumn[], text: string): { rows: SelectQueryBuilder<Database, 'tests', object>; newestFirst: RawBuilder<unknown> };
}

/** Repositories ask through this; which index answers is the dialect's business. */
export const searchContains = (db: Kysely<any>, columns: readonly SearchColumn[], text: string) => dialectOf(db).search.contains(columns, text);
export const searchMatching = (db: Kysely<Database>, columns: readonly SearchColumn[], text: string) => dialectOf(db).search.matching(db, columns, text);
