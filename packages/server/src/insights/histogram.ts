import type { BucketCount } from './buckets.js';

/**
 * A duration histogram as one value (insight_rollups.histogram): per bucket with a count or a sum,
 * 14 bytes — bucket (uint16), count (int32), sum of durations in ms (float64), little-endian, in
 * bucket order. A day of a case fills at most a few dozen buckets, so a row stays under 1 KB.
 */
const ENTRY = 14;

export type Histogram = Map<number, { n: number; totalMs: number }>;

export function addTo(h: Histogram, bucket: number, n: number, totalMs: number): void {
  const e = h.get(bucket);
  if (e) {
    e.n += n;
    e.totalMs += totalMs;
  } else h.set(bucket, { n, totalMs });
}

export function encode(h: Histogram): Buffer {
  const entries = [...h.entries()].filter(([, e]) => e.n !== 0 || e.totalMs !== 0).sort(([a], [b]) => a - b);
  const out = Buffer.alloc(entries.length * ENTRY);
  let at = 0;
  for (const [bucket, e] of entries) {
    out.writeUInt16LE(bucket, at);
    out.writeInt32LE(e.n, at + 2);
    out.writeDoubleLE(e.totalMs, at + 6);
    at += ENTRY;
  }
  return out;
}

/**
 * One histogram per duration, each holding that one result, packed side by side in a single buffer
 * (`encode` of a one-entry histogram each): the upkeep of a fresh run's batch makes one per stored
 * test, and a Map, an array and a Buffer apiece were most of the garbage it made.
 */
export function packEach(durations: readonly number[], bucketOf: (ms: number) => number): Buffer[] {
  const all = Buffer.allocUnsafe(durations.length * ENTRY);
  const out: Buffer[] = new Array(durations.length);
  for (let i = 0, at = 0; i < durations.length; i++, at += ENTRY) {
    all.writeUInt16LE(bucketOf(durations[i]), at);
    all.writeInt32LE(1, at + 2);
    all.writeDoubleLE(durations[i], at + 6);
    out[i] = all.subarray(at, at + ENTRY);
  }
  return out;
}

/**
 * The histogram of one result of `durationMs` in `bucket`, packed into the start of `into` (which
 * must hold 14 bytes): SQLite's upkeep makes one per stored test of a fresh run, inside SQL.
 */
export function packOne(durationMs: number, bucket: number, into: Buffer): Buffer {
  into.writeUInt16LE(bucket, 0);
  into.writeInt32LE(1, 2);
  into.writeDoubleLE(durationMs, 6);
  return into.subarray(0, ENTRY);
}

/**
 * The sum of two packed histograms, packed: entries of one bucket add up, entries that come to
 * nothing go. Every fold calls it per pending row (SQLite's inside SQL: db/dialects/sqlite.ts), so
 * it merges the two sorted byte runs without building a Map, through DataViews: Buffer's
 * `readUInt16LE` and kin took it 1.3–1.9 µs for a histogram of a dozen buckets, a DataView 0.6
 * (docs/benchmarks.md).
 */
export function addPacked(a: Uint8Array | null, b: Uint8Array | null): Buffer {
  const x = asBuffer(a);
  const y = asBuffer(b);
  if (y.length === 0) return x;
  if (x.length === 0) return y;
  const out = Buffer.allocUnsafe(x.length + y.length);
  const dx = viewOf(x);
  const dy = viewOf(y);
  const d = viewOf(out);
  const lx = x.length - ENTRY;
  const ly = y.length - ENTRY;
  let i = 0;
  let j = 0;
  let o = 0;
  while (i <= lx || j <= ly) {
    const kx = i <= lx ? dx.getUint16(i, true) : NO_BUCKET;
    const ky = j <= ly ? dy.getUint16(j, true) : NO_BUCKET;
    let n = 0;
    let totalMs = 0;
    if (kx <= ky) {
      n += dx.getInt32(i + 2, true);
      totalMs += dx.getFloat64(i + 6, true);
      i += ENTRY;
    }
    if (ky <= kx) {
      n += dy.getInt32(j + 2, true);
      totalMs += dy.getFloat64(j + 6, true);
      j += ENTRY;
    }
    if (n === 0 && totalMs === 0) continue;
    d.setUint16(o, kx < ky ? kx : ky, true);
    d.setInt32(o + 2, n, true);
    d.setFloat64(o + 6, totalMs, true);
    o += ENTRY;
  }
  return out.subarray(0, o);
}

/**
 * The sum of packed histograms laid end to end (PostgreSQL's `string_agg` of them), packed: as
 * `addPacked` over each in turn, without the database sending one array element per histogram.
 */
export function sumConcatenated(bytes: Uint8Array): Buffer {
  const b = asBuffer(bytes);
  const d = viewOf(b);
  const bucketAt = (at: number) => d.getUint16(at, true);
  // Already a sum (one histogram, or a single entry): returned as it is.
  let summed = true;
  for (let at = 0; at + ENTRY <= b.length && summed; at += ENTRY) {
    summed = (at === 0 || bucketAt(at - ENTRY) < bucketAt(at)) && (d.getInt32(at + 2, true) !== 0 || d.getFloat64(at + 6, true) !== 0);
  }
  if (summed) return b;
  const at: number[] = [];
  for (let i = 0; i + ENTRY <= b.length; i += ENTRY) at.push(i);
  at.sort((i, j) => bucketAt(i) - bucketAt(j));
  const out = Buffer.allocUnsafe(b.length);
  const o8 = viewOf(out);
  let o = 0;
  for (let k = 0; k < at.length; ) {
    const bucket = bucketAt(at[k]!);
    let n = 0;
    let totalMs = 0;
    for (; k < at.length && bucketAt(at[k]!) === bucket; k++) {
      n += d.getInt32(at[k]! + 2, true);
      totalMs += d.getFloat64(at[k]! + 6, true);
    }
    if (n === 0 && totalMs === 0) continue;
    o8.setUint16(o, bucket, true);
    o8.setInt32(o + 2, n, true);
    o8.setFloat64(o + 6, totalMs, true);
    o += ENTRY;
  }
  return out.subarray(0, o);
}

/**
 * A running sum of packed histograms: what SQLite's `testreport_hist_sum` keeps per group
 * (db/dialects/sqliteHistograms.ts). Entries are added up in a flat array (bucket, count, sum of
 * durations; a group holds a few dozen buckets at most) and packed once at the end: an `addPacked`
 * per step allocated a buffer each time and was most of the fold's grouping (docs/benchmarks.md).
 * Additions happen in the order `addPacked` would make them, so the sums are the same bit for bit.
 */
export class PackedSum {
  readonly #entries: number[] = [];

  /** Adds the histogram packed in the first `length` bytes of `view`. */
  add(view: DataView, length: number): void {
    const e = this.#entries;
    for (let at = 0; at + ENTRY <= length; at += ENTRY) {
      const bucket = view.getUint16(at, true);
      let i = 0;
      while (i < e.length && e[i] !== bucket) i += 3;
      if (i < e.length) {
        e[i + 1] += view.getInt32(at + 2, true);
        e[i + 2] += view.getFloat64(at + 6, true);
      } else e.push(bucket, view.getInt32(at + 2, true), view.getFloat64(at + 6, true));
    }
  }

  /** The sum, packed: entries in bucket order, those that came to nothing left out. */
  packed(): Buffer {
    const e = this.#entries;
    const kept: number[] = [];
    for (let i = 0; i < e.length; i += 3) if (e[i + 1] !== 0 || e[i + 2] !== 0) kept.push(i);
    if (kept.length === 0) return NOTHING;
    kept.sort((x, y) => e[x]! - e[y]!);
    const out = Buffer.allocUnsafe(kept.length * ENTRY);
    const d = viewOf(out);
    let o = 0;
    for (const i of kept) {
      d.setUint16(o, e[i]!, true);
      d.setInt32(o + 2, e[i + 1]!, true);
      d.setFloat64(o + 6, e[i + 2]!, true);
      o += ENTRY;
    }
    return out;
  }
}

/** An empty packed histogram. */
export const NOTHING = Buffer.alloc(0);
const asBuffer = (bytes: Uint8Array | null): Buffer =>
  bytes === null ? NOTHING : Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
const viewOf = (b: Uint8Array) => new DataView(b.buffer, b.byteOffset, b.byteLength);
/** Past every bucket a uint16 can hold. */
const NO_BUCKET = 0x10000;

/** Adds the histogram packed in `bytes` to `h`. */
export function decodeInto(h: Histogram, bytes: Uint8Array): void {
  const b = asBuffer(bytes);
  for (let at = 0; at + ENTRY <= b.length; at += ENTRY) addTo(h, b.readUInt16LE(at), b.readInt32LE(at + 2), b.readDoubleLE(at + 6));
}


/**
 * A histogram indexed by bucket, for reads that add up thousands of packed histograms: typed arrays
 * instead of a Map entry per bucket (half the time of `GET /insights` at 10,000,000 results went
 * into those Map operations).
 */
export class DenseHistogram {
  n = new Float64Array(256);
  totalMs = new Float64Array(256);

  /** Adds the histogram packed in `bytes`. */
  addPacked(bytes: Uint8Array): void {
    const b = asBuffer(bytes);
    for (let at = 0; at + ENTRY <= b.length; at += ENTRY) {
      const bucket = b.readUInt16LE(at);
      if (bucket >= this.n.length) this.#grow(bucket);
      this.n[bucket] += b.readInt32LE(at + 2);
      this.totalMs[bucket] += b.readDoubleLE(at + 6);
    }
  }

  #grow(bucket: number) {
    const size = Math.max(bucket + 1, this.n.length * 2);
    const n = new Float64Array(size);
    const totalMs = new Float64Array(size);
    n.set(this.n);
    totalMs.set(this.totalMs);
    this.n = n;
    this.totalMs = totalMs;
  }

  /** The buckets with a count, in bucket order. */
  buckets(): BucketCount[] {
    const out: BucketCount[] = [];
    for (let k = 0; k < this.n.length; k++) if (this.n[k] !== 0 || this.totalMs[k] !== 0) out.push({ bucket: k, n: this.n[k]!, totalMs: this.totalMs[k]! });
    return out;
  }
}
