import { sql, type Kysely } from 'kysely';
import { ByteWriter } from '../../lib/byteWriter.js';
import { BINARY_FRAMING, binaryRowWriter, columnTypes } from './postgresBinaryCopy.js';
import { laterConnection } from '../later.js';
import type { PipelinedConnection } from './postgresPipelining.js';

/** Bytes per CopyData message, whatever the row count. */
const CHUNK_BYTES = 256 * 1024;

// COPY's text format: a tab between columns, a newline after each row, `\N` for NULL, and the
// backslash escapes below for those characters inside a value (all others, unicode included, go
// as they are; a NUL cannot be stored in a text column whichever way it is sent).
const SPECIAL = /[\\\n\r\t]/;
const SPECIALS = /[\\\n\r\t]/g;
const ESCAPES: Record<string, string> = { '\\': '\\\\', '\n': '\\n', '\r': '\\r', '\t': '\\t' };
const escape = (c: string) => ESCAPES[c]!;
const TAB = 0x09;
const NEWLINE = 0x0a;

/** One value as COPY's text format writes it (the values repositories store: see `db/values.ts`). */
function writeField(out: ByteWriter, value: unknown, column: string): void {
  if (value === null || value === undefined) return out.write('\\N');
  switch (typeof value) {
    case 'string':
      return out.write(SPECIAL.test(value) ? value.replace(SPECIALS, escape) : value);
    case 'number':
    case 'bigint':
    case 'boolean':
      // What `pg` would have sent as a bound parameter (a boolean into an integer column fails either way).
      return out.write(String(value));
    default:
      if (Buffer.isBuffer(value)) {
        // bytea's hex input (\x…), its backslash escaped for COPY's text format.
        out.write('\\\\x');
        return out.hex(value);
      }
      throw new TypeError(`insertMany: column ${column} holds a ${typeof value}, not a stored representation`);
  }
}

/**
 * Chunk buffers a finished COPY handed back, for the next: its chunks are written straight into
 * them, and fresh memory for each (a 500-test batch's results are some hundreds of KB of COPY text)
 * costs its page faults every time. Only a COPY that succeeded gives its buffers back: PostgreSQL has then
 * read every byte, so the socket holds none of them any more.
 */
const spare: Buffer<ArrayBuffer>[] = [];
const SPARE_MAX = 16;

/** Writes one row of `columns`' values in a COPY format (text: tab-separated, then a newline; binary: the field count, then each field). */
type RowWriter = (out: ByteWriter, row: Record<string, unknown>, columns: readonly string[]) => void;

const textRow: RowWriter = (out, row, columns) => {
  for (let i = 0; i < columns.length; i++) {
    if (i > 0) out.byte(TAB);
    writeField(out, row[columns[i]!], columns[i]!);
  }
  out.byte(NEWLINE);
};

/** `chunks` written by `write` row by row, in chunks of about `CHUNK_BYTES`, and the buffers they are on. */
function encodeRows(
  rows: readonly Record<string, unknown>[],
  columns: readonly string[],
  write: RowWriter,
  framing?: { header: Uint8Array; trailer: Uint8Array },
): { chunks: Uint8Array[]; buffers: Buffer<ArrayBuffer>[] } {
  const chunks: Uint8Array[] = [];
  const buffers: Buffer<ArrayBuffer>[] = [];
  const next = () => new ByteWriter(spare.pop() ?? Buffer.allocUnsafeSlow(CHUNK_BYTES + 64 * 1024));
  const done = (w: ByteWriter) => {
    chunks.push(w.bytes());
    buffers.push(w.buffer());
  };
  let out = next();
  if (framing) out.raw(framing.header);
  for (const row of rows) {
    write(out, row, columns);
    if (out.length >= CHUNK_BYTES) {
      done(out);
      out = next();
    }
  }
  if (framing) out.raw(framing.trailer);
  if (out.length > 0) done(out);
  else spare.push(out.buffer());
  return { chunks, buffers };
}

/**
 * Inserts rows (all with the keys of the first) by `COPY table (columns) FROM STDIN` on the
 * connection the caller holds — its transaction, if any. Against the `unnest($1::type[], …)` insert
 * it replaces, nothing is turned into array literals (`pg` escaped every element with a regular
 * expression, the JSON columns full of quotes) and PostgreSQL parses no arrays. The rows go in
 * COPY's binary format when every column's type has an encoder here (postgresBinaryCopy.ts), else
 * as text, sent with the statement (postgresPipeline.ts). Inside a transaction the COPY is held
 * back and goes with the transaction's next statement (db/later.ts).
 */
export async function copyRows(db: Kysely<any>, table: string, rows: readonly Record<string, unknown>[]): Promise<void> {
  if (rows.length === 0) return;
  const columns = Object.keys(rows[0]);
  const binary = binaryRowWriter(await columnTypes(db, table), columns);
  const statement = sql`copy ${sql.table(table)} (${sql.join(columns.map((c) => sql.ref(c)))}) from stdin${sql.raw(binary ? ' (format binary)' : '')}`.compile(db).sql;
  // The rows are encoded before the COPY starts: a value that cannot be written then fails the
  // insert before anything is sent.
  const { chunks, buffers } = binary ? encodeRows(rows, columns, binary, BINARY_FRAMING) : encodeRows(rows, columns, textRow);
  const step = { sql: statement, parameters: [], copy: chunks, done: () => recycle(buffers) };
  const held = laterConnection(db);
  if (held) held.later(step);
  else await db.getExecutor().provideConnection((conn) => (conn as PipelinedConnection).run(step));
}

function recycle(buffers: Buffer<ArrayBuffer>[]) {
  for (const b of buffers) if (spare.length < SPARE_MAX && b.length <= 2 * CHUNK_BYTES) spare.push(b);
}
