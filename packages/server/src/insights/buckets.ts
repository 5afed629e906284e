/**
 * Durations are kept per case and day as a histogram with 16 buckets per doubling (log scale), each
 * bucket holding its count and the sum of its durations. Bucket 0 is [0, 1) ms; bucket k ≥ 1 is
 * [2^((k-1)/16), 2^(k/16)) ms, so a bucket's upper bound is 2^(1/16) ≈ 1.044 times its lower one.
 */
import { sql, type Expression, type Kysely, type RawBuilder } from 'kysely';
import { log2 } from '../db/math.js';

import { BUCKETS_PER_DOUBLING } from './bucketOf.js';

export { BUCKETS_PER_DOUBLING, bucketOf } from './bucketOf.js';

/**
 * How far from a bucket edge `16 · log2(d)` must be for SQL's logarithm to bucket `d` as `bucketOf`
 * does. Both logarithms are within a few units in the last place (≈ 1e-11 at 16 · log2 of the largest
 * double); on the edge they may round to either side, so a value this near an edge is left to
 * `bucketOf` itself: among whole milliseconds that is the powers of two only.
 */
const EDGE_MARGIN = 1e-6;

/** `bucketOf(duration)` in SQL, for a duration ≥ 1 not near a bucket edge (`nearBucketEdgeSql`); 0 below 1. */
export function bucketSql(db: Kysely<any>, duration: Expression<number>): RawBuilder<number> {
  return sql<number>`case when ${duration} < 1 then 0 else 1 + cast(floor(${log2(db, duration)} * ${sql.lit(BUCKETS_PER_DOUBLING)}) as integer) end`;
}

/** Whether `bucketSql` may differ from `bucketOf` for this duration (≥ 1 and near an edge). */
export function nearBucketEdgeSql(db: Kysely<any>, duration: Expression<number>): RawBuilder<boolean> {
  const x = sql`(${log2(db, duration)} * ${sql.lit(BUCKETS_PER_DOUBLING)})`;
  return sql<boolean>`(${duration} >= 1 and abs(${x} - round(${x})) < ${sql.lit(EDGE_MARGIN)})`;
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
