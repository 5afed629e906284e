import type { Kysely } from 'kysely';
import { dialectOf } from '../database.js';

/**
 * The search index in two parts (db/search.ts, docs/insights.md "Search"): titles once per test case
 * instead of once per result, error messages and output only for results that have them. Migration
 * 015's index tokenized every result's full title in the storing transaction: most of ingestion's
 * cost on SQLite (docs/benchmarks.md, issue 27). Search answers the same.
 */
export async function up(db: Kysely<any>): Promise<void> {
  const search = dialectOf(db).search;
  await search.v1.drop(db);
  await search.create(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  const search = dialectOf(db).search;
  await search.drop(db);
  await search.v1.create(db);
}
