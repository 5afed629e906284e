import { brotliCompressSync, brotliDecompressSync, constants } from 'node:zlib';
import type { Db } from '../db/database.js';
import { prepared } from '../db/prepared.js';
import { executeLater } from '../db/later.js';

type Reservation = { id: string; scope: string; key: string; method: string; path: string; request_hash: string; created_at: string };

// The statements of every POST with an Idempotency-Key (a new key: reserve, then complete), compiled once (db/prepared.ts).
const findKey = prepared((db, v: Record<'scope' | 'key', string>) => db.selectFrom('idempotency_keys').selectAll().where('scope', '=', v.scope).where('key', '=', v.key));
const reserveKey = prepared((db, v: Reservation) =>
  db
    .insertInto('idempotency_keys')
    .values({ id: v.id, scope: v.scope, key: v.key, method: v.method, path: v.path, request_hash: v.request_hash, created_at: v.created_at })
    .onConflict((oc) => oc.columns(['scope', 'key']).doNothing()),
);
const completeKey = prepared((db, v: Record<'id' | 'status_code' | 'response_body' | 'response_brotli', any>) =>
  db.updateTable('idempotency_keys').set({ status_code: v.status_code, response_body: v.response_body, response_brotli: v.response_brotli }).where('id', '=', v.id),
);

/** Answers from this many bytes are stored compressed (migration 025). */
const COMPRESS_FROM = 8 * 1024;
// Quality 0: a 150 KB batch answer in ~80 µs to a tenth of its size; higher qualities take 5–10× longer for little more.
const BROTLI_FAST = { params: { [constants.BROTLI_PARAM_QUALITY]: 0, [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT } };

/** The stored form of an answer: short ones as text, long ones compressed. */
function stored(body: string | Uint8Array | null): { response_body: string | null; response_brotli: Buffer | null } {
  if (body === null) return { response_body: null, response_brotli: null };
  const long = typeof body === 'string' ? body.length >= COMPRESS_FROM / 3 && Buffer.byteLength(body) >= COMPRESS_FROM : body.byteLength >= COMPRESS_FROM;
  if (long) return { response_body: null, response_brotli: brotliCompressSync(body, BROTLI_FAST) };
  return { response_body: typeof body === 'string' ? body : Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('utf8'), response_brotli: null };
}

export function createIdempotencyRepo(db: Db) {
  return {
    /** The key's row, its answer as text whichever way it was stored. */
    async find(scope: string, key: string) {
      const row = (await findKey(db, { scope, key })).rows[0];
      if (!row) return undefined;
      const { response_brotli, ...rest } = row;
      return response_brotli ? { ...rest, response_body: brotliDecompressSync(response_brotli).toString('utf8') } : rest;
    },
    /** Reserves the key; false when another request already holds it. */
    async reserve(row: Reservation): Promise<boolean> {
      const res = await reserveKey(db, row);
      return Number(res.numAffectedRows ?? 0) > 0;
    },
    /** In the request's transaction, whose COMMIT it can go with (db/later.ts). */
    async complete(id: string, statusCode: number, body: string | Uint8Array | null) {
      await executeLater(db, completeKey.bound(db, { id, status_code: statusCode, ...stored(body) }));
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
