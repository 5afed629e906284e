import { sql, type Kysely } from 'kysely';
import type { ByteWriter } from '../../lib/byteWriter.js';

/**
 * COPY's binary format (PostgreSQL's "COPY … (FORMAT binary)"): each field is its length and its
 * bytes in the type's binary form, so nothing is escaped or turned into text on our side (a text
 * value's backslashes, tabs and newlines; a bytea's hex digits, twice its size) and PostgreSQL
 * parses no text on its side. It needs each column's exact type, which the catalog gives once per
 * table (`columnTypes`): the tables this server copies into hold only the types below.
 */

type FieldWriter = (out: ByteWriter, value: unknown, column: string) => void;

const INT32_MIN = -(2 ** 31);
const INT32_MAX = 2 ** 31 - 1;
const DIGITS = /^-?\d+$/;

function fail(column: string, value: unknown, type: string): never {
  throw new TypeError(`insertMany: column ${column} (${type}) cannot hold ${typeof value} ${String(value).slice(0, 40)}`);
}

/** A whole number from what a repository stores for an integer column (a number, a bigint, or its digits: `pg` reads int8 as text). */
function wholeNumber(value: unknown, column: string, type: string): number {
  if (typeof value === 'number' && Number.isSafeInteger(value)) return value;
  if (typeof value === 'bigint' && value >= BigInt(Number.MIN_SAFE_INTEGER) && value <= BigInt(Number.MAX_SAFE_INTEGER)) return Number(value);
  if (typeof value === 'string' && DIGITS.test(value) && Number.isSafeInteger(Number(value))) return Number(value);
  return fail(column, value, type);
}

const FIELDS: Record<string, FieldWriter> = {
  text: (out, value, column) =>
    typeof value === 'string' ? out.sized(value) : typeof value === 'object' || typeof value === 'function' || typeof value === 'symbol' ? fail(column, value, 'text') : out.sized(String(value)),
  integer: (out, value, column) => {
    const n = wholeNumber(value, column, 'integer');
    if (n < INT32_MIN || n > INT32_MAX) fail(column, value, 'integer');
    out.int32(4);
    out.int32(n);
  },
  bigint: (out, value, column) => {
    out.int32(8);
    out.int64(wholeNumber(value, column, 'bigint'));
  },
  'double precision': (out, value, column) => {
    const n = typeof value === 'number' ? value : typeof value === 'string' && value.trim() !== '' ? Number(value) : NaN;
    // A string that is not a number fails here, as PostgreSQL's text input would refuse it.
    if (typeof value !== 'number' && Number.isNaN(n)) fail(column, value, 'double precision');
    out.int32(8);
    out.float64(n);
  },
  bytea: (out, value, column) => {
    if (!(value instanceof Uint8Array)) fail(column, value, 'bytea');
    out.int32(value.length);
    out.raw(value);
  },
};
FIELDS['character varying'] = FIELDS.text!;

/** The signature, flags and header extension before the rows; the field count -1 after them. */
export const BINARY_FRAMING = {
  header: Buffer.concat([Buffer.from('PGCOPY\n\xff\r\n\0', 'latin1'), Buffer.alloc(8)]),
  trailer: Buffer.from([0xff, 0xff]),
};

/**
 * Writes a row of `columns` in the binary format, or undefined when a column's type has no writer
 * here (the caller then copies as text).
 */
export function binaryRowWriter(types: ReadonlyMap<string, string>, columns: readonly string[]) {
  const writers: FieldWriter[] = [];
  for (const c of columns) {
    const w = FIELDS[types.get(c) ?? ''];
    if (!w) return undefined;
    writers.push(w);
  }
  return (out: ByteWriter, row: Record<string, unknown>, cols: readonly string[]) => {
    out.int16(cols.length);
    for (let i = 0; i < cols.length; i++) {
      const v = row[cols[i]!];
      if (v === null || v === undefined) out.int32(-1);
      else writers[i]!(out, v, cols[i]!);
    }
  };
}

/**
 * Column types per database and table, read once: the schema changes only by migrations, which
 * forget them (`forgetColumnTypes`).
 */
const known = new WeakMap<object, Map<string, Promise<ReadonlyMap<string, string>>>>();
const keyOf = (db: Kysely<any>): object => db.getExecutor().adapter;

export function columnTypes(db: Kysely<any>, table: string): Promise<ReadonlyMap<string, string>> {
  let tables = known.get(keyOf(db));
  if (!tables) known.set(keyOf(db), (tables = new Map()));
  let types = tables.get(table);
  if (!types) {
    types = sql<{ column_name: string; data_type: string }>`select column_name, data_type from information_schema.columns
      where table_schema = current_schema() and table_name = ${table}`
      .execute(db)
      .then(({ rows }) => new Map(rows.map((r) => [r.column_name, r.data_type])));
    tables.set(table, types);
    // A failed lookup (a transaction already aborted, say) is asked again next time.
    types.catch(() => tables!.delete(table));
  }
  return types;
}

/** After a migration: the next COPY reads the types again. */
export function forgetColumnTypes(db: Kysely<any>): void {
  known.delete(keyOf(db));
}
