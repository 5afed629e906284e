import { sql } from 'kysely';
import type { SearchSupport } from '../search.js';
import { containsIgnoringCase } from '../text.js';

const COLUMNS = ['full_title', 'error_message', 'stdout', 'stderr'] as const;

/**
 * pg_trgm GIN indexes on `lower(column)`, the expression `containsIgnoringCase` compares, so a
 * search is `lower(col) like lower('%text%')` answered from the index (a bitmap OR over the columns
 * asked for). Trigrams rather than tsvector because a search is for any substring — an error code,
 * a URL path, half an identifier — not for words with stemming, and so it finds what SQLite's FTS5
 * trigram index finds. pg_trgm ships with PostgreSQL and is a trusted extension (13+): the owner of
 * the database may create it.
 */
export const postgresSearch: SearchSupport = {
  async create(db) {
    await sql`create extension if not exists pg_trgm`.execute(db);
    for (const c of COLUMNS) await sql`create index ${sql.raw(`tests_search_${c}`)} on tests using gin (lower(${sql.ref(c)}) gin_trgm_ops)`.execute(db);
  },
  async drop(db) {
    for (const c of COLUMNS) await sql`drop index if exists ${sql.raw(`tests_search_${c}`)}`.execute(db);
  },
  contains(columns, text) {
    const any = columns.map((c) => containsIgnoringCase(c, text));
    return sql<boolean>`(${sql.join(any, sql` or `)})`;
  },
  matching(db, columns, text) {
    return { rows: db.selectFrom('tests').where(this.contains(columns, text)), newestFirst: sql`tests.id` };
  },
};
