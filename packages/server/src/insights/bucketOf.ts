/**
 * A duration's histogram bucket (insights/buckets.ts), alone in a module that imports nothing: the
 * SQLite dialect's functions use it (db/dialects/sqliteHistograms.ts), and buckets.ts reaches the
 * dialects through db/math.ts.
 */
export const BUCKETS_PER_DOUBLING = 16;

export function bucketOf(durationMs: number): number {
  if (!(durationMs >= 1)) return 0;
  return 1 + Math.floor(Math.log2(durationMs) * BUCKETS_PER_DOUBLING);
}
