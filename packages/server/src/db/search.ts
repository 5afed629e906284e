import type { Kysely, RawBuilder } from 'kysely';
import { dialectOf } from './database.js';

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
}

/** Repositories ask through this; which index answers is the dialect's business. */
export const searchContains = (db: Kysely<any>, columns: readonly SearchColumn[], text: string) => dialectOf(db).search.contains(columns, text);
