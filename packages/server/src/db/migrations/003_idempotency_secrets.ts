import type { Kysely } from 'kysely';

/**
 * Earlier versions stored the whole answer of POST /api-keys, the full key included, as the
 * replayable response of an Idempotency-Key (issue 15.2). Keys are now never stored there: drop
 * those bodies. A replay of such a record is refused (409) instead of handing the key out again.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.updateTable('idempotency_keys').set({ response_body: null }).where('method', '=', 'POST').where('path', 'like', '%/api-keys').execute();
}

export async function down(): Promise<void> {
  // The removed secrets cannot come back.
}
