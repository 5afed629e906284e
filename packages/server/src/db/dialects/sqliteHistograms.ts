import type Database from 'better-sqlite3';
import { sql } from 'kysely';
import type { PackedHistogramSql } from '../dialect.js';
import { addPacked, NOTHING, packOne, PackedSum } from '../../insights/histogram.js';
import { bucketOf } from '../../insights/bucketOf.js';

/**
 * The packed-histogram functions of SQLite's fold (insights/foldInSql.ts), in JavaScript on the
 * writing connection. Histograms reach them as hex text: better-sqlite3 copies every BLOB argument
 * into a Buffer of its own (1.6–1.8 µs each here: most of the fold's upsert onto existing rollup
 * rows), while a string of ASCII costs a fifth of that and decodes into one reused buffer
 * (docs/benchmarks.md). What they return better-sqlite3 copies into SQLite at once. The functions
 * run one at a time on the one thread, so one buffer serves every connection.
 */
const scratch = Buffer.allocUnsafe(64 * 1024);
/** `testreport_hist_one`'s answer, overwritten by each call. */
const one = Buffer.allocUnsafe(14);

/** `hex` decoded into `scratch` from byte `at`, valid until the next call; a Buffer of its own when it does not fit. */
function fromHex(hex: string, at: number): Buffer {
  if (hex.length === 0) return NOTHING;
  if (at + hex.length / 2 > scratch.length) return Buffer.from(hex, 'hex');
  return scratch.subarray(at, at + scratch.write(hex, at, 'hex'));
}

const scratchView = new DataView(scratch.buffer, scratch.byteOffset, scratch.byteLength);

/** Adds the histogram `hex` holds to `sum`, decoded into `scratch` when it fits. */
function addHex(sum: PackedSum, hex: string): void {
  if (hex.length / 2 <= scratch.length) return sum.add(scratchView, scratch.write(hex, 0, 'hex'));
  const b = Buffer.from(hex, 'hex');
  sum.add(new DataView(b.buffer, b.byteOffset, b.byteLength), b.length);
}

export function defineHistogramFunctions(db: Database.Database): void {
  db.function('testreport_hist_add', { deterministic: true, directOnly: true }, (a: string | null, b: string | null) => {
    const x = fromHex(a ?? '', 0);
    return addPacked(x, fromHex(b ?? '', x.length));
  });
  // A number argument costs no copy; the one-entry histogram returned is copied into SQLite at once.
  db.function('testreport_hist_one', { deterministic: true, directOnly: true }, (ms: number) => packOne(ms, bucketOf(ms), one));
  // Typed loosely: @types/better-sqlite3 gives a step the accumulator's element type as its argument.
  // The step returns nothing, so better-sqlite3 keeps the accumulator without resetting its handle.
  db.aggregate<any>('testreport_hist_sum', {
    start: () => new PackedSum(),
    step: (sum: PackedSum, value: string | null) => {
      if (value) addHex(sum, value);
    },
    result: (sum: PackedSum) => sum.packed(),
    deterministic: true,
    directOnly: true,
  });
}

/** SQL over packed histograms, handing them to the functions above as hex. */
export const sqliteHistograms: PackedHistogramSql = {
  sum: (value) => sql<Buffer>`testreport_hist_sum(hex(${value}))`,
  add: (a, b) => sql<Buffer>`testreport_hist_add(hex(${a}), hex(${b}))`,
  one: (durationMs) => sql<Buffer>`testreport_hist_one(${durationMs})`,
};
