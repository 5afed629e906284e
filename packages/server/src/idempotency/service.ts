import type { OperationId } from '@testreport/contract';
import type { ServerConfig } from '../config.js';
import type { Db } from '../db/database.js';
import { joinTransaction } from '../db/transaction.js';
import { sha256Hex } from '../lib/crypto.js';
import { ConflictError, ValidationError } from '../lib/errors.js';
import { newId } from '../lib/ids.js';
import type { IdempotencyRepo } from './repo.js';

const TTL_MS = 24 * 3600 * 1000;

/**
 * Operations whose response carries a secret shown once (docs/decisions.md §10: never stored in clear, not
 * even inside a stored response). Webhook responses only say `hasSecret`, so they replay as usual.
 */
export const SECRET_RESPONSES: Partial<Record<OperationId, string>> = { 'apiKeys.create': 'an API key' };

/** JSON text, or its UTF-8 bytes (a long answer: http/router.ts); a replay always gives text. */
export interface StoredResponse<B extends string | Uint8Array<ArrayBuffer> = string | Uint8Array<ArrayBuffer>> {
  status: number;
  body: B;
}

export interface RunInput {
  scope: string;
  key: string;
  method: string;
  path: string;
  bodyHash: string;
  /** What the response carries a secret of (e.g. "an API key"): such a response is never stored or replayed. */
  secretInResponse?: string;
}

/**
 * Idempotency-Key on every POST (docs/decisions.md §5): the first response is stored and replayed for a
 * repeat by the same caller within 24 h, so a client retry never duplicates a result.
 *
 * Crash safety (issue 15.1): the reservation, the work and the stored response commit together in
 * one transaction (`inTransaction`: every repository below `work` joins it). A crash before the
 * commit leaves nothing behind, so the retry with the same key simply does the work; a crash after
 * it leaves the stored response, which the retry gets. No lease or clean-up is needed, and no
 * in-process state guards it, so servers sharing one database behave the same.
 */
export function createIdempotencyService(db: Db, repo: IdempotencyRepo, config: ServerConfig) {
  const checkKey = (key: string) => {
    if (key.length > 255 || !/^[\x21-\x7e]+$/.test(key)) {
      throw new ValidationError('Idempotency-Key', 'invalid_value', 'Idempotency-Key must be 1–255 visible ASCII characters');
    }
  };

  /** The stored answer for a repeat, a 409 for a different request, or undefined when the key is free. */
  async function replayOf(input: RunInput, requestHash: string): Promise<(StoredResponse<string> & { replayed: true }) | undefined> {
    const existing = await repo.find(input.scope, input.key);
    if (!existing) return undefined;
    // Expired, or a reservation without a response: written by a version that reserved outside the
    // transaction and died before answering (15.1). Nothing it did was acknowledged, so it is free.
    if (Date.parse(existing.created_at) < config.now().getTime() - TTL_MS || existing.status_code === null) {
      await repo.release(existing.id);
      return undefined;
    }
    if (existing.request_hash !== requestHash) throw new ConflictError('This Idempotency-Key was already used for a different request');
    if (input.secretInResponse) {
      throw new ConflictError(
        `This Idempotency-Key already created ${input.secretInResponse}; its secret is shown only once and is not stored, so it cannot be replayed. Create a new one if it was lost.`,
      );
    }
    return { status: existing.status_code, body: existing.response_body ?? '', replayed: true };
  }

  return {
    /**
     * Runs `work` once per (scope, key). A repeat of a finished request gets the stored response; a
     * repeat with a different body gets 409; a repeat racing the first waits for its commit.
     */
    async run<B extends string | Uint8Array<ArrayBuffer>>(input: RunInput, work: () => Promise<StoredResponse<B>>): Promise<StoredResponse<B | string> & { replayed: boolean }> {
      checkKey(input.key);
      const requestHash = sha256Hex(`${input.method} ${input.path}\n${input.bodyHash}`);
      // Joins a group commit's savepoint (groupCommit.ts) rather than opening one more inside it:
      // any failure here fails the whole request, and a nested savepoint cost SQLite a sub-journal
      // copy of every page the request wrote plus a flush of the search index's pending rows.
      return joinTransaction(db, async () => {
        const id = newId();
        const reservation = { id, scope: input.scope, key: input.key, method: input.method, path: input.path, request_hash: requestHash, created_at: config.now().toISOString() };
        // Reserving first: a new key, nearly every request, costs one statement, not a lookup and
        // then the reservation. A key that is taken is looked up after (a repeat gets its answer, an
        // expired or abandoned row is released) and reserved again. On PostgreSQL the reservation
        // waits for another transaction holding the key, and then sees its commit.
        if (!(await repo.reserve(reservation))) {
          const replay = await replayOf(input, requestHash);
          if (replay) return replay;
          if (!(await repo.reserve(reservation))) {
            // Another server took the key between the lookup and this reservation (shared PostgreSQL).
            const raced = await replayOf(input, requestHash);
            if (raced) return raced;
            throw new ConflictError('A request with this Idempotency-Key is still in progress; retry shortly');
          }
        }
        const res = await work();
        // Server faults are not remembered: the retry should get a fresh chance.
        if (res.status >= 500) await repo.release(id);
        // A response carrying a secret is never stored (docs/decisions.md §10): a replay is refused instead.
        else await repo.complete(id, res.status, input.secretInResponse ? null : res.body);
        return { ...res, replayed: false };
      });
    },
    // A string is hashed as its UTF-8 bytes: the same digest as the bytes it was decoded from.
    bodyHash: (body: string | Uint8Array) => sha256Hex(body),
    purgeExpired: () => repo.deleteOlderThan(new Date(config.now().getTime() - TTL_MS).toISOString()),
  };
}
export type IdempotencyService = ReturnType<typeof createIdempotencyService>;
