import pg from 'pg';
import { PostgresDialect, sql, type QueryCreator } from 'kysely';
import type { DialectSupport } from '../dialect.js';
import { postgresSearch } from './postgresSearch.js';
import { copyRows } from './postgresCopy.js';
import { arrayLiteral } from './postgresArrayLiteral.js';
import { pipelining } from './postgresPipelining.js';
import { executeLater } from '../later.js';

const INT8 = 20;
const NUMERIC = 1700;

/**
 * `pg` returns int8 (every COUNT(*), SUM of integers) and numeric (AVG, SUM of bigints) as strings
 * so no precision is lost past 2^53. Counts and sizes here stay far below that, and the rest of the
 * server expects numbers as SQLite gives them, so both parse to numbers, per pool (the driver's
 * global type table stays untouched for anyone else in the process).
 */
const types = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    if (oid === INT8 || oid === NUMERIC) return (v: string) => (v === null ? null : Number(v));
    return pg.types.getTypeParser(oid, format);
  },
} as pg.CustomTypesConfig;

const PG_CONNECTION_LOST = /^(Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|Client was closed and is not queryable)/;

/**
 * Rows per `upsertMany` statement: a bound on one statement's arrays (its memory in both processes)
 * rather than on its parameters, which stay one per column.
 */
const ARRAY_ROWS_PER_STATEMENT = 5_000;

/** Connections per server process; N servers share the database's max_connections (100 by default). */
const POOL_SIZE = 10;

/** The `effective_io_concurrency` each pooled connection asks for (`open`). */
export const EFFECTIVE_IO_CONCURRENCY = 32;
const IO_CONCURRENCY = `select set_config('effective_io_concurrency', '${EFFECTIVE_IO_CONCURRENCY}', false) where current_setting('effective_io_concurrency')::int < ${EFFECTIVE_IO_CONCURRENCY}`;

const MAX_BOUND_PARAMS = 65_535;

export const postgres: DialectSupport = {
  name: 'postgres',
  search: postgresSearch,
  log2: (value) => sql<number>`(ln((${value})::float8) / ln(2::float8))`,
  // `set local`: for the rest of the caller's transaction only (outside one it does nothing).
  forBulkWork: async (db) => {
    await sql`set local work_mem = '256MB'`.execute(db);
  },
  handles: (url) => /^postgres(ql)?:\/\//i.test(url),
  maxBoundParams: MAX_BOUND_PARAMS,
  // 23505 unique_violation (a primary key is a unique index too).
  isUniqueViolation: (err) => err instanceof Error && (err as { code?: string }).code === '23505',
  outage(err) {
    if (!(err instanceof Error)) return undefined;
    const code = (err as { code?: string }).code ?? '';
    if (code === '53100') return 'full'; // disk_full
    // 08: connection exceptions; 57P01-03: admin/crash shutdown, cannot connect now (starting up,
    // shutting down, recovering); 53: insufficient resources (out of memory, too many connections).
    if (/^(08|53)/.test(code) || ['57P01', '57P02', '57P03'].includes(code)) return 'unavailable';
    // Errors of pg itself when the server closes the connection or the pool cannot get one.
    if (PG_CONNECTION_LOST.test(err.message)) return 'unavailable';
    return undefined;
  },
  columnTypes: { bool: 'integer', json: 'text', timestamp: 'text', float: 'double precision' },
  foldCase: (column) => sql<string>`lower(${sql.ref(column)} collate "default")`,
  sharedByServers: true,
  lateralOverArrays: true,
  /**
   * A transaction-scoped advisory lock held by a transaction that stays open while `work` runs on
   * other pooled connections: it is released on commit, and also when the holder's connection dies
   * with its process, so a crashed server never leaves the lock taken.
   */
  exclusive: (db, lock, work) =>
    db.transaction().execute(async (trx) => {
      const { rows } = await sql<{ got: boolean }>`select pg_try_advisory_xact_lock(hashtext(${`testreport:${lock}`})) as got`.execute(trx);
      if (!rows[0]?.got) return { ran: false as const };
      return { ran: true as const, value: await work() };
    }),
  async lockForTransaction(db, lock) {
    await sql`select pg_advisory_xact_lock(hashtext(${`testreport:${lock}`}))`.execute(db);
  },
  async writeMany(db, rows, build, rowsPerStatement) {
    const out: unknown[] = [];
    for (let i = 0; i < rows.length; i += rowsPerStatement) out.push(...(await build(rows.slice(i, i + rowsPerStatement)).execute()));
    return out;
  },
  // Their results unread: inside a transaction, held back until its next statement (db/later.ts).
  async writeTogether(db, writes) {
    const live = writes.filter((w) => w.rows.length > 0);
    const values = live.reduce((n, w) => n + w.rows.length * Object.keys(w.rows[0]!).length, 0);
    if (live.length < 2 || values > MAX_BOUND_PARAMS / 2 || live.some((w) => w.rows.length > w.rowsPerStatement)) {
      for (const w of live) {
        for (let i = 0; i < w.rows.length; i += w.rowsPerStatement) await executeLater(db, w.build(w.rows.slice(i, i + w.rowsPerStatement)).compile());
      }
      return;
    }
    // Every data-modifying WITH query runs to completion whether or not the statement reads it.
    let statement: QueryCreator<any> = db;
    for (const [i, w] of live.entries()) statement = statement.with(`w${i}`, () => w.build(w.rows) as never);
    await executeLater(db, statement.selectNoFrom(sql.lit(1).as('done')).compile());
  },
  // COPY … FROM STDIN (postgresCopy.ts): the rows as one text stream, no statement or array per batch.
  insertMany: (db, table, rows) => copyRows(db, table, rows),
  async upsertMany(db, table, rows, types, finish) {
    const columns = Object.keys(types);
    const out: unknown[] = [];
    for (let i = 0; i < rows.length; i += ARRAY_ROWS_PER_STATEMENT) {
      const part = rows.slice(i, i + ARRAY_ROWS_PER_STATEMENT);
      const arrays = columns.map((c) => sql`cast(${arrayLiteral(part.map((r) => r[c]))} as ${sql.raw(types[c])}[])`);
      out.push(...(await finish(db.insertInto(table).columns(columns).expression(sql`select * from unnest(${sql.join(arrays)})`)).execute()));
    }
    return out;
  },
  open(url) {
    const pool = new pg.Pool({
      connectionString: url,
      max: POOL_SIZE,
      types,
      // Prefetch for bitmap heap scans, where the text searches (`GET /search`, `GET /errors?q=`)
      // read one table page per match: with PostgreSQL's default of 1 a first search of 10,000
      // matches not in memory took 1.4 s, with 32 0.18 s (docs/benchmarks.md, issue 27). Raised only
      // from below, so a value the database's administrator chose stays; a server without
      // posix_fadvise refuses it, and the default stays. Awaited before the pool hands the client
      // out: a query sent while this one still ran would queue inside pg, which pg 9 refuses
      // ("client.query() when the client is already executing a query").
      onConnect: async (client) => {
        await client.query(IO_CONCURRENCY).catch(() => {});
      },
    });
    // An idle client whose connection drops (database restart, failover) emits 'error' on the pool;
    // unhandled it would crash the process. The next query gets a fresh connection instead.
    pool.on('error', () => {});
    // A connection that drops while checked out (mid-query, or held for a transaction) emits 'error' on
    // its client instead: the query in flight is rejected with it, so the event itself is not needed.
    pool.on('connect', (client) => client.on('error', () => {}));
    return { dialect: pipelining(new PostgresDialect({ pool }), types), plugins: [] };
  },
};
