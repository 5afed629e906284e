import { describe, expect, it } from 'vitest';
import { addPacked, addTo, decodeInto, encode, sumConcatenated, type Histogram } from './histogram.js';

const packed = (entries: [bucket: number, n: number, totalMs: number][]) => {
  const h: Histogram = new Map();
  for (const [bucket, n, totalMs] of entries) addTo(h, bucket, n, totalMs);
  return encode(h);
};
const entries = (bytes: Uint8Array) => {
  const h: Histogram = new Map();
  decodeInto(h, bytes);
  return [...h].map(([bucket, e]) => [bucket, e.n, e.totalMs]);
};

describe('adding packed histograms (the SQL fold\'s functions)', () => {
  it('adds the entries of a bucket, keeps the others in bucket order and drops what comes to nothing', () => {
    const a = packed([[3, 2, 250.5], [10, 1, 900], [40, 1, 12_000]]);
    const b = packed([[1, 1, 20], [10, 1, 1000.25], [40, -1, -12_000], [41, 3, 45_000]]);
    expect(entries(addPacked(a, b))).toEqual([[1, 1, 20], [3, 2, 250.5], [10, 2, 1900.25], [41, 3, 45_000]]);
    expect(addPacked(a, b)).toEqual(addPacked(b, a));
  });

  it('treats a missing or empty histogram as nothing', () => {
    const a = packed([[7, 1, 130]]);
    expect(entries(addPacked(null, a))).toEqual([[7, 1, 130]]);
    expect(entries(addPacked(a, Buffer.alloc(0)))).toEqual([[7, 1, 130]]);
    expect(addPacked(a, packed([[7, -1, -130]])).length).toBe(0);
    expect(addPacked(null, null).length).toBe(0);
  });

  it('adds up histograms laid end to end (PostgreSQL\'s fold) as addPacked over each does', () => {
    const a = packed([[3, 2, 250.5], [10, 1, 900], [40, 1, 12_000]]);
    const b = packed([[1, 1, 20], [10, 1, 1000.25], [40, -1, -12_000], [41, 3, 45_000]]);
    const c = packed([[3, 1, 99]]);
    expect(sumConcatenated(Buffer.concat([a, b, c]))).toEqual(addPacked(addPacked(a, b), c));
    // One histogram is already its sum; one that cancels out is nothing.
    expect(sumConcatenated(a)).toEqual(a);
    expect(sumConcatenated(Buffer.concat([c, packed([[3, -1, -99]])])).length).toBe(0);
    expect(sumConcatenated(Buffer.alloc(0)).length).toBe(0);
  });
});
