import { AppError } from '../lib/errors.js';
import { causes, outageError, systemOutage, type OutageKind } from '../lib/outage.js';
import type { ArtifactStore } from './store.js';

const WHAT = 'The artifact store';

/**
 * An outage of the store: the data dir's disk is full (507), or the store cannot be reached or
 * answers 5xx / times out (S3 restarting, a network cut) (503). A refused or broken client body is
 * not one: it surfaces as the body's own error (an AppError, or no system call).
 */
export function storeOutage(err: unknown): OutageKind | undefined {
  if (err instanceof AppError) return undefined;
  const system = systemOutage(err);
  if (system) return system;
  for (const e of causes(err)) {
    if ((e.$metadata?.httpStatusCode ?? 0) >= 500) return 'unavailable';
    if (e.name === 'TimeoutError' || e.name === 'RequestTimeout') return 'unavailable';
  }
  return undefined;
}

/**
 * The store with its outages turned into their error answers (503/507 with Retry-After), so no
 * caller mistakes them for a fault of the request: an upload cut short by a full disk used to be
 * answered "Malformed multipart body: ENOSPC" (400), which clients do not retry (issue 26).
 */
export function withOutageAnswers(store: ArtifactStore): ArtifactStore {
  const guard =
    <A extends unknown[], R>(fn: (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      try {
        return await fn(...args);
      } catch (err) {
        const kind = storeOutage(err);
        throw kind ? outageError(kind, WHAT) : err;
      }
    };
  return {
    put: guard(store.put),
    get: guard(store.get),
    size: guard(store.size),
    delete: guard(store.delete),
    deletePrefix: guard(store.deletePrefix),
    check: guard(store.check),
    ...(store.presignGet ? { presignGet: guard(store.presignGet) } : {}),
    ...(store.sweep ? { sweep: guard(store.sweep) } : {}),
  };
}
