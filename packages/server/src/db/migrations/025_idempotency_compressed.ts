import type { Kysely } from 'kysely';
import { dialectOf } from '../database.js';

/**
 * A long stored answer of an Idempotency-Key (a batch of 500 results: 150–180 KB of JSON) kept
 * compressed (idempotency/repo.ts): brotli at quality 0 makes it a tenth of that in ~80 µs, where
 * the text cost every batch ~45 pages of the WAL, copies of it in the driver and, on the virtual
 * machines measured, the page faults of fresh memory for those copies (issue 30). Rows written
 * before keep their text in `response_body`; a row holds one or the other.
 */
export async function up(db: Kysely<any>): Promise<void> {
  const bytes = dialectOf(db).name === 'postgres' ? 'bytea' : 'blob';
  await db.schema.alterTable('idempotency_keys').addColumn('response_brotli', bytes).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('idempotency_keys').dropColumn('response_brotli').execute();
}
