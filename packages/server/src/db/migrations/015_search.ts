import type { Kysely } from 'kysely';
import { dialectOf } from '../database.js';

/**
 * The text index of `GET /search` (db/search.ts, docs/insights.md "Search"), built over every result
 * already stored: an FTS5 trigram table with triggers on SQLite, pg_trgm GIN indexes on PostgreSQL,
 * over title, error message and output of every result. Migration 018 replaced it.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await dialectOf(db).search.v1.create(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await dialectOf(db).search.v1.drop(db);
}
