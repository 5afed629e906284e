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

/**
 * Runs `send` over batches with bounded concurrency and returns the results in input order. After
 * the first failure no new batch starts (the ones in flight finish), and that first error is thrown.
 */
export async function runBatches<T, R>(batches: T[][], concurrency: number, send: (batch: T[], index: number) => Promise<R[]>): Promise<R[]> {
  const limit = pLimit(Math.max(1, concurrency));
  let failure: { error: unknown } | undefined;
  const results = await Promise.all(
    batches.map((batch, index) =>
      limit(async () => {
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
