import type { ServerConfig } from '../config.js';
import { sha256Hex } from '../lib/crypto.js';
import { ConflictError, ValidationError } from '../lib/errors.js';
import { newId } from '../lib/ids.js';
import type { IdempotencyRepo } from './repo.js';

const TTL_MS = 24 * 3600 * 1000;

export interface StoredResponse {
  status: number;
  body: string;
}

/**
 * Idempotency-Key on every POST (decisions §5): the first response is stored and replayed for a
 * repeat by the same caller within 24 h, so a client retry never duplicates a result.
 */
export function createIdempotencyService(repo: IdempotencyRepo, config: ServerConfig) {
  return {
    /**
     * Runs `work` once per (scope, key). A repeat of a finished request gets the stored response;
     * a repeat while the first is still running, or with a different body, gets 409.
     */
    async run(
      input: { scope: string; key: string; method: string; path: string; bodyHash: string },
      work: () => Promise<StoredResponse>,
    ): Promise<StoredResponse & { replayed: boolean }> {
      if (input.key.length > 255 || !/^[\x21-\x7e]+$/.test(input.key)) {
        throw new ValidationError('Idempotency-Key', 'invalid_value', 'Idempotency-Key must be 1–255 visible ASCII characters');
      }
      const now = config.now();
      const requestHash = sha256Hex(`${input.method} ${input.path}\n${input.bodyHash}`);
      const existing = await repo.find(input.scope, input.key);
      if (existing && Date.parse(existing.created_at) < now.getTime() - TTL_MS) {
        await repo.release(existing.id);
      } else if (existing) {
        if (existing.request_hash !== requestHash) {
          throw new ConflictError('This Idempotency-Key was already used for a different request');
        }
        if (existing.status_code === null) throw new ConflictError('A request with this Idempotency-Key is still in progress; retry shortly');
        return { status: existing.status_code, body: existing.response_body ?? '', replayed: true };
      }
      const id = newId();
      const reserved = await repo.reserve({ id, scope: input.scope, key: input.key, method: input.method, path: input.path, request_hash: requestHash, created_at: now.toISOString() });
      if (!reserved) throw new ConflictError('A request with this Idempotency-Key is still in progress; retry shortly');
      try {
        const res = await work();
        // Server faults are not remembered: the retry should get a fresh chance.
        if (res.status >= 500) await repo.release(id);
        else await repo.complete(id, res.status, res.body);
        return { ...res, replayed: false };
      } catch (err) {
        await repo.release(id);
        throw err;
      }
    },
    bodyHash: (body: string | Uint8Array) => sha256Hex(Buffer.from(body)),
    purgeExpired: () => repo.deleteOlderThan(new Date(config.now().getTime() - TTL_MS).toISOString()),
  };
}
export type IdempotencyService = ReturnType<typeof createIdempotencyService>;
