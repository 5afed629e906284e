import pg from 'pg';
import { PostgresDialect, sql, type Kysely } from 'kysely';
import type { DialectSupport } from '../dialect.js';
import { postgresSearch } from './postgresSearch.js';

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

/** Rows per unnest INSERT: bounds the size of one statement's arrays, not its bound values. */
const UNNEST_ROWS = 5_000;

/** Column types by table, read once from the catalog: every database has the same migrated schema. */
const columnTypesOf = new Map<string, Promise<Map<string, string>>>();
function typesOf(db: Kysely<any>, table: string): Promise<Map<string, string>> {
  let types = columnTypesOf.get(table);
  if (!types) {
    types = sql<{ column_name: string; data_type: string }>`select column_name, data_type from information_schema.columns where table_schema = current_schema() and table_name = ${table}`
      .execute(db)
      .then(({ rows }) => new Map(rows.map((r) => [r.column_name, r.data_type])));
    types.catch(() => columnTypesOf.delete(table));
    columnTypesOf.set(table, types);
  }
  return types;
}

const PG_CONNECTION_LOST = /^(Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|Client was closed and is not queryable)/;

/** Connections per server process; N servers share the database's max_connections (100 by default). */
const POOL_SIZE = 10;

export const postgres: DialectSupport = {
  name: 'postgres',
  search: postgresSearch,
  handles: (url) => /^postgres(ql)?:\/\//i.test(url),
  maxBoundParams: 65_535,
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
  sharedByServers: true,
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
  async writeMany(db, rows, build, rowsPerStatement) {
    const out: unknown[] = [];
    for (let i = 0; i < rows.length; i += rowsPerStatement) out.push(...(await build(rows.slice(i, i + rowsPerStatement)).execute()));
    return out;
  },
  async insertMany(db, table, rows) {
    if (rows.length === 0) return;
    const columns = Object.keys(rows[0]);
    const types = await typesOf(db, table);
    for (let i = 0; i < rows.length; i += UNNEST_ROWS) {
      const part = rows.slice(i, i + UNNEST_ROWS);
      const arrays = columns.map((c) => {
        const type = types.get(c);
        if (!type) throw new Error(`insertMany: ${table} has no column ${c}`);
        return sql`${part.map((r) => r[c] ?? null)}::${sql.raw(type)}[]`;
      });
      await sql`insert into ${sql.table(table)} (${sql.join(columns.map((c) => sql.ref(c)))}) select * from unnest(${sql.join(arrays)})`.execute(db);
    }
  },
  open(url) {
    const pool = new pg.Pool({ connectionString: url, max: POOL_SIZE, types });
    // An idle client whose connection drops (database restart, failover) emits 'error' on the pool;
    // unhandled it would crash the process. The next query gets a fresh connection instead.
    pool.on('error', () => {});
    // A connection that drops while checked out (mid-query, or held for a transaction) emits 'error' on
    // its client instead: the query in flight is rejected with it, so the event itself is not needed.
    pool.on('connect', (client) => client.on('error', () => {}));
    return { dialect: new PostgresDialect({ pool }), plugins: [] };
  },
};
