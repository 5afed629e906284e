import type { Db } from '../db/database.js';

export function createIdempotencyRepo(db: Db) {
  return {
    find(scope: string, key: string) {
      return db.selectFrom('idempotency_keys').selectAll().where('scope', '=', scope).where('key', '=', key).executeTakeFirst();
    },
    /** Reserves the key; false when another request already holds it. */
    async reserve(row: { id: string; scope: string; key: string; method: string; path: string; request_hash: string; created_at: string }): Promise<boolean> {
      const res = await db.insertInto('idempotency_keys').values(row).onConflict((oc) => oc.columns(['scope', 'key']).doNothing()).executeTakeFirst();
      return Number(res.numInsertedOrUpdatedRows ?? 0) > 0;
    },
    async complete(id: string, statusCode: number, body: string | null) {
      await db.updateTable('idempotency_keys').set({ status_code: statusCode, response_body: body }).where('id', '=', id).execute();
    },
    async release(id: string) {
      await db.deleteFrom('idempotency_keys').where('id', '=', id).execute();
    },
    async deleteOlderThan(iso: string) {
      await db.deleteFrom('idempotency_keys').where('created_at', '<', iso).execute();
    },
  };
}
export type IdempotencyRepo = ReturnType<typeof createIdempotencyRepo>;
