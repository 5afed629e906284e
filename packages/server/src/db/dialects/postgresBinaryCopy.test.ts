import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDbKind } from '../../testing/database.js';
import { startTestServer, type TestServer } from '../../testing/harness.js';
import { copyRows } from './postgresCopy.js';
import { binaryRowWriter, columnTypes } from './postgresBinaryCopy.js';

// Rows go to PostgreSQL in COPY's binary format when every column's type has a writer, else as
// text: both must store exactly what was given, and a value a column cannot hold must fail the
// insert before COPY starts, leaving the connection usable.
let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
}, 180_000);
afterAll(async () => {
  await t?.close();
});

const db = () => t.server.services.deps.db;
const onPostgres = it.runIf(testDbKind() === 'postgres');

const ROWS = [
  { t: 'plain', v: 'v', i: 0, b: 0, d: 0, y: Buffer.alloc(0) },
  { t: 'tab\there\nnew line \\ backslash "quote" ünïcödé 🎭', v: '', i: 2 ** 31 - 1, b: Number.MAX_SAFE_INTEGER, d: -0.25, y: Buffer.from([0, 9, 10, 92, 255]) },
  { t: '', v: 'NULL', i: -(2 ** 31), b: -5, d: 1e300, y: Buffer.from('\\N', 'latin1') },
  { t: null, v: null, i: null, b: null, d: null, y: null },
  // As `pg` reads int8 and numbers may arrive: digits and bigints.
  { t: 'digits', v: 'x', i: '42', b: '-9007199254740991', d: '2.5', y: Buffer.from([1]) },
  { t: 'bigint', v: 'y', i: 7n, b: 123n, d: 3, y: Buffer.from([2]) },
];

const readBack = async (table: string) =>
  (await sql<Record<string, unknown>>`select t, v, i, b::text as b, d, y from ${sql.table(table)} order by n`.execute(db())).rows;

describe('COPY of rows (PostgreSQL)', () => {
  onPostgres('stores every supported type exactly, in the binary format', async () => {
    await sql`create table copy_binary (n serial, t text, v varchar(20), i integer, b bigint, d double precision, y bytea)`.execute(db());
    expect(binaryRowWriter(await columnTypes(db(), 'copy_binary'), Object.keys(ROWS[0]!))).toBeTypeOf('function');
    await copyRows(db(), 'copy_binary', ROWS);
    const rows = await readBack('copy_binary');
    expect(rows).toEqual(ROWS.map((r) => ({
      t: r.t, v: r.v, i: r.i === null ? null : Number(r.i), b: r.b === null ? null : String(r.b), d: r.d === null ? null : Number(r.d), y: r.y,
    })));
  });

  onPostgres('falls back to text for a table with a type it has no writer for, storing the same', async () => {
    await sql`create table copy_text (n serial, t text, v varchar(20), i integer, b bigint, d double precision, y bytea, j jsonb)`.execute(db());
    expect(binaryRowWriter(await columnTypes(db(), 'copy_text'), [...Object.keys(ROWS[0]!), 'j'])).toBeUndefined();
    await copyRows(db(), 'copy_text', ROWS.map((r, k) => ({ ...r, j: k % 2 ? '{"a": [1, "x\\ty"]}' : null })));
    expect(await readBack('copy_text')).toEqual(await readBack('copy_binary'));
    const { rows } = await sql<{ j: unknown }>`select j from copy_text order by n`.execute(db());
    expect(rows.map((r) => r.j)).toEqual(ROWS.map((_, k) => (k % 2 ? { a: [1, 'x\ty'] } : null)));
  });

  onPostgres('refuses a value its column cannot hold before COPY starts, and the connection goes on', async () => {
    await sql`create table copy_refused (n serial, i integer, b bigint, d double precision, y bytea)`.execute(db());
    for (const bad of [{ i: 2 ** 31 }, { i: 1.5 }, { i: 'twelve' }, { b: 2 ** 60 }, { d: 'many' }, { y: 'not bytes' }, { i: true }]) {
      const row = { i: 1, b: 1, d: 1, y: Buffer.from([1]), ...bad };
      await expect(copyRows(db(), 'copy_refused', [row]), JSON.stringify(bad)).rejects.toThrow(TypeError);
    }
    const { rows } = await sql<{ n: string }>`select count(*)::text as n from copy_refused`.execute(db());
    expect(rows[0]!.n).toBe('0');
    await copyRows(db(), 'copy_refused', [{ i: 1, b: 2, d: 3, y: Buffer.from([4]) }]);
    const after = await sql<{ n: string }>`select count(*)::text as n from copy_refused`.execute(db());
    expect(after.rows[0]!.n).toBe('1');
  });

  // The data goes with the statement, before PostgreSQL has accepted it (postgresPipeline.ts):
  // when it fails at the first row, the megabytes still coming must be dropped, not read as
  // statements, and every pooled connection must answer the next query.
  onPostgres('fails a COPY refused at its first row with megabytes behind it, in a transaction or not, and the connections go on', async () => {
    await sql`create table copy_checked (n integer primary key, t text not null check (t <> 'refused'))`.execute(db());
    const rows = Array.from({ length: 40_000 }, (_, n) => ({ n, t: n === 0 ? 'refused' : 'x'.repeat(100) }));
    await expect(copyRows(db(), 'copy_checked', rows)).rejects.toThrow(/check constraint/);
    await expect(db().transaction().execute((trx) => copyRows(trx, 'copy_checked', rows))).rejects.toThrow(/check constraint/);
    for (let i = 0; i < 12; i++) expect(Number((await sql<{ n: number }>`select 1 as n`.execute(db())).rows[0]!.n)).toBe(1);
    await copyRows(db(), 'copy_checked', rows.slice(1));
    const { rows: counted } = await sql<{ n: string }>`select count(*)::text as n from copy_checked`.execute(db());
    expect(counted[0]!.n).toBe('39999');
  });
});
