/**
 * Durations are kept per case and day as a histogram with 16 buckets per doubling (log scale), each
 * bucket holding its count and the sum of its durations. Bucket 0 is [0, 1) ms; bucket k ≥ 1 is
 * [2^((k-1)/16), 2^(k/16)) ms, so a bucket's upper bound is 2^(1/16) ≈ 1.044 times its lower one.
 */
export const BUCKETS_PER_DOUBLING = 16;

export function bucketOf(durationMs: number): number {
  if (!(durationMs >= 1)) return 0;
  return 1 + Math.floor(Math.log2(durationMs) * BUCKETS_PER_DOUBLING);
}

export interface BucketCount {
  bucket: number;
  n: number;
  totalMs: number;
}

/**
 * The q-quantile (nearest rank) of the durations a histogram counts, estimated as the mean of the
 * bucket holding that rank. The true value lies in the same bucket, so the estimate is off by less
 * than 2^(1/16) − 1 ≈ 4.4 % of it (under 1 ms in bucket 0), and exact when that bucket's durations
 * are all equal (a test of steady duration). null for an empty histogram.
 */
export function quantile(buckets: readonly BucketCount[], q: number): number | null {
  const sorted = [...buckets].filter((b) => b.n > 0).sort((x, y) => x.bucket - y.bucket);
  const total = sorted.reduce((s, b) => s + b.n, 0);
  if (total === 0) return null;
  const rank = Math.max(1, Math.ceil(q * total));
  let seen = 0;
  for (const b of sorted) {
    seen += b.n;
    if (seen >= rank) return Math.round((b.totalMs / b.n) * 100) / 100;
  }
  return null;
}
