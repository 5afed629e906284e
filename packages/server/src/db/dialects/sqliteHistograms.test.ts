import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { addPacked, addTo, encode, packEach, type Histogram } from '../../insights/histogram.js';
import { bucketOf } from '../../insights/buckets.js';
import { defineHistogramFunctions } from './sqliteHistograms.js';

const packed = (entries: [bucket: number, n: number, totalMs: number][]) => {
  const h: Histogram = new Map();
  for (const [bucket, n, totalMs] of entries) addTo(h, bucket, n, totalMs);
  return encode(h);
};
/** A histogram of `buckets` buckets: 14 bytes each, so 5,000 of them pass the 64 KiB the functions decode into. */
const wide = (buckets: number, times: number) => packed(Array.from({ length: buckets }, (_, b) => [b, times, times * b * 1.5] as [number, number, number]));

function database() {
  const db = new Database(':memory:');
  defineHistogramFunctions(db);
  db.exec('create table h (g integer, v blob)');
  return db;
}

describe("SQLite's histogram functions (histograms handed over as hex)", () => {
  it('adds two histograms in SQL as addPacked does, empty and NULL ones as nothing', () => {
    const db = database();
    const a = packed([[3, 2, 250.5], [10, 1, 900]]);
    const b = packed([[1, 1, 20], [10, -1, -900], [41, 3, 45_000]]);
    const add = db.prepare('select testreport_hist_add(hex(?), hex(?))').pluck();
    expect(add.get(a, b)).toEqual(addPacked(a, b));
    expect(add.get(a, Buffer.alloc(0))).toEqual(a);
    expect(add.get(null, b)).toEqual(b);
    expect(add.get(a, packed([[3, -2, -250.5], [10, -1, -900]]))).toEqual(Buffer.alloc(0));
  });

  it('sums every group without one step overwriting what an earlier step kept', () => {
    const db = database();
    const parts = [packed([[1, 1, 10]]), packed([[2, 1, 20]]), packed([[1, 1, 30]]), packed([[5, 1, 7]])];
    const insert = db.prepare('insert into h values (?, ?)');
    parts.forEach((v, i) => insert.run(i < 3 ? 1 : 2, v));
    const rows = db.prepare('select g, testreport_hist_sum(hex(v)) as s from h group by g order by g').all() as { g: number; s: Buffer }[];
    expect(rows.map((r) => r.s)).toEqual([addPacked(addPacked(parts[0]!, parts[1]!), parts[2]!), parts[3]]);
  });

  it('handles histograms larger than the buffer it decodes into', () => {
    const db = database();
    const big = wide(5_000, 1);
    const add = db.prepare('select testreport_hist_add(hex(?), hex(?))').pluck();
    expect(add.get(big, big)).toEqual(wide(5_000, 2));
    const insert = db.prepare('insert into h values (1, ?)');
    insert.run(big);
    insert.run(big);
    expect(db.prepare('select testreport_hist_sum(hex(v)) from h').pluck().get()).toEqual(wide(5_000, 2));
  });

  it("packs one result's duration as the upkeep in JavaScript does, bucket edges included", () => {
    const db = database();
    const one = db.prepare('select testreport_hist_one(?)').pluck();
    const durations = [0, 0.5, 0.999, 1, 2, 3.9999999999999996, 7.999999999999998, 1024, 1000.25, 123456.789, 2 ** 20];
    const expected = packEach(durations, bucketOf);
    durations.forEach((ms, i) => expect(one.get(ms)).toEqual(Buffer.from(expected[i]!)));
  });

  it('sums the one-result histograms of a group as addPacked does, and an emptied group to nothing', () => {
    const db = database();
    const insert = db.prepare('insert into h values (?, testreport_hist_one(?))');
    const durations = [5, 5.5, 900, 5, 2 ** 12, 0.25];
    for (const ms of durations) insert.run(1, ms);
    const each = packEach(durations, bucketOf);
    const sum = db.prepare('select testreport_hist_sum(hex(v)) from h where g = 1').pluck();
    expect(sum.get()).toEqual(each.reduce((a, b) => addPacked(a, b), Buffer.alloc(0)));
    db.prepare('insert into h values (2, ?)').run(packed([[4, 1, 12]]));
    db.prepare('insert into h values (2, ?)').run(packed([[4, -1, -12]]));
    expect(db.prepare('select testreport_hist_sum(hex(v)) from h where g = 2').pluck().get()).toEqual(Buffer.alloc(0));
  });
});
