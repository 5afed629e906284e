import type { Db } from '../db/database.js';
import { prepared } from '../db/prepared.js';

type Reservation = { id: string; scope: string; key: string; method: string; path: string; request_hash: string; created_at: string };

// The three statements of every POST with an Idempotency-Key, compiled once (db/prepared.ts).
const findKey = prepared((db, v: Record<'scope' | 'key', string>) => db.selectFrom('idempotency_keys').selectAll().where('scope', '=', v.scope).where('key', '=', v.key));
const reserveKey = prepared((db, v: Reservation) =>
  db
    .insertInto('idempotency_keys')
    .values({ id: v.id, scope: v.scope, key: v.key, method: v.method, path: v.path, request_hash: v.request_hash, created_at: v.created_at })
    .onConflict((oc) => oc.columns(['scope', 'key']).doNothing()),
);
const completeKey = prepared((db, v: Record<'id' | 'status_code' | 'response_body', any>) =>
  db.updateTable('idempotency_keys').set({ status_code: v.status_code, response_body: v.response_body }).where('id', '=', v.id),
);

export function createIdempotencyRepo(db: Db) {
  return {
    async find(scope: string, key: string) {
      return (await findKey(db, { scope, key })).rows[0];
    },
    /** Reserves the key; false when another request already holds it. */
    async reserve(row: Reservation): Promise<boolean> {
      const res = await reserveKey(db, row);
      return Number(res.numAffectedRows ?? 0) > 0;
    },
    async complete(id: string, statusCode: number, body: string | null) {
      await completeKey(db, { id, status_code: statusCode, response_body: body });
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
