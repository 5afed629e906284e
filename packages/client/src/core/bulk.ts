import pLimit from 'p-limit';

export interface BulkOptions {
  /** Items per request. */
  batchSize?: number;
  /** Requests in flight at once. */
  concurrency?: number;
}

export function chunk<T>(items: readonly T[], size: number): T[][] {
  if (!Number.isInteger(size) || size < 1) throw new RangeError(`batchSize must be a positive integer, got ${size}`);
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/** Bounded concurrency for work that arrives over time (a stream of batches, a reporter's tests). */
export interface TaskPool {
  /** Starts `task` once fewer than `concurrency` run; the promise settles with it. */
  run<T>(task: () => Promise<T>): Promise<T>;
  /** Tasks running or waiting to run. */
  readonly pending: number;
  /** Resolves once a task settles (at once when none is pending): lets a producer wait for room. */
  settled(): Promise<void>;
  /** Resolves once no task is pending, including tasks added while waiting. */
  drain(): Promise<void>;
}

export function taskPool(concurrency: number): TaskPool {
  const limit = pLimit(Math.max(1, concurrency));
  const all = new Set<Promise<void>>();
  return {
    run<T>(task: () => Promise<T>): Promise<T> {
      const result = limit(task);
      const tracked: Promise<void> = result.then(
        () => {},
        () => {},
      ).finally(() => all.delete(tracked));
      all.add(tracked);
      return result;
    },
    get pending() {
      return all.size;
    },
    async settled() {
      if (all.size) await Promise.race(all);
    },
    async drain() {
      while (all.size) await Promise.all(all);
    },
  };
}

/**
 * Runs `send` over batches with bounded concurrency and returns the results in input order. After
 * the first failure no new batch starts (the ones in flight finish), and that first error is thrown.
 */
export async function runBatches<T, R>(batches: T[][], concurrency: number, send: (batch: T[], index: number) => Promise<R[]>): Promise<R[]> {
  const pool = taskPool(concurrency);
  let failure: { error: unknown } | undefined;
  const results = await Promise.all(
    batches.map((batch, index) =>
      pool.run(async () => {
        if (failure) return [];
        try {
          return await send(batch, index);
        } catch (error) {
          failure ??= { error };
          return [];
        }
      }),
    ),
  );
  if (failure) throw failure.error;
  return results.flat();
}
