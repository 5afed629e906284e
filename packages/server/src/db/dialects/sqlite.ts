import { chmodSync, closeSync, existsSync, openSync } from 'node:fs';
import Database from 'better-sqlite3';
import { SqliteDialect, SqliteQueryCompiler, sql, type Kysely, type SqliteDatabase, type SelectQueryNode } from 'kysely';
import type { DialectSupport } from '../dialect.js';
import { sqliteSearch } from './sqliteSearch.js';
import { defineHistogramFunctions, sqliteHistograms } from './sqliteHistograms.js';
import { runPerRow, type RunStatement } from '../perRow.js';
import { inAnyOpenTransaction } from '../transaction.js';
import { ReadRoutingDriver } from './sqliteReader.js';
import { FALLBACK_AUTOCHECKPOINT_PAGES, startCheckpointer, WAL_KEPT_MIB, type Checkpointer } from './sqliteCheckpointer.js';
import { WalSync } from './sqliteWalSync.js';

const LOCKING = new Set(['ForUpdate', 'ForNoKeyUpdate', 'ForShare', 'ForKeyShare', 'NoWait', 'SkipLocked']);

/**
 * SQLite has no row locks (a writing transaction holds the whole database): `FOR UPDATE` and kin
 * are left out when a select is compiled. Done in the compiler rather than by a plugin that copied
 * every query's tree through a transformer first: that cost ~5% of a one-test request's CPU (issue 30).
 */
class SqliteCompilerWithoutRowLocks extends SqliteQueryCompiler {
  protected override visitSelectQuery(node: SelectQueryNode): void {
    const modifiers = node.endModifiers;
    if (modifiers?.some((m) => m.modifier && LOCKING.has(m.modifier))) {
      node = { ...node, endModifiers: modifiers.filter((m) => !(m.modifier && LOCKING.has(m.modifier))) };
    }
    super.visitSelectQuery(node);
  }
}

/**
 * The database holds password and key hashes: owner-only. SQLite gives its -wal and -shm files the
 * database file's mode, so creating that file 0600 first covers all three; chmod fixes older files.
 */
function createPrivate(file: string) {
  if (file === ':memory:' || file === '') return;
  if (!existsSync(file)) closeSync(openSync(file, 'a', 0o600));
  for (const f of [file, `${file}-wal`, `${file}-shm`]) if (existsSync(f)) chmodSync(f, 0o600);
}

const MAX_BOUND_PARAMS = 32_766;
const WAL_SIZE_LIMIT_BYTES = WAL_KEPT_MIB * 1024 * 1024;
/** Distinct statement texts kept prepared: every query the server makes, with room to spare. */
const STATEMENT_CACHE = 500;

/**
 * Kysely prepares every query it runs anew (`db.prepare(sql)` per execution). Repositories build
 * the same few hundred statement texts over and over, so prepared statements are kept by text
 * (least recently used dropped first). A better-sqlite3 statement cannot run while it is being
 * iterated; Kysely iterates only for `.stream()`, which the server does not use.
 */
function withStatementCache(db: Database.Database, checkpointer?: Checkpointer, writes?: WriteTracker): SqliteDatabase {
  const cache = new Map<string, Database.Statement>();
  return {
    close: () => db.close(),
    prepare(source: string) {
      let stmt = cache.get(source);
      if (stmt) cache.delete(source);
      else {
        stmt = db.prepare(source);
        if (checkpointer && source === 'commit') stmt = afterRun(stmt, checkpointer.committed);
        if (checkpointer && source === 'begin') stmt = beforeRun(stmt, checkpointer.beforeWrite);
        // `readonly`, not `reader`: an INSERT … RETURNING is a reader (it yields rows) that writes.
        if (writes && !stmt.readonly && !TRANSACTION_CONTROL.test(source)) stmt = beforeRunOrAll(stmt, writes.wrote);
        if (cache.size >= STATEMENT_CACHE) cache.delete(cache.keys().next().value!);
      }
      cache.set(source, stmt);
      return stmt;
    },
  };
}

/**
 * Every group-commit member runs in a SAVEPOINT, and SQLite copies each page a savepoint (or a
 * statement inside a transaction) changes into a sub-journal, so that it can be rolled back alone.
 * With the default temp store that journal stays in memory only up to 64 KiB and then spills to a
 * temporary file, with two write() calls per page (its number, then the page): as many as the WAL's
 * own, half the write calls of a one-test request. A group's members are small writes, so their
 * journal is kept in memory (×1.15 one-test requests/s, docs/benchmarks.md); every other
 * transaction keeps the default, since a retention sweep's or a migration's statement can journal
 * hundreds of megabytes. SQLite reads the setting when a write transaction begins.
 */
function groupJournalInMemory(db: Database.Database) {
  const inMemory = db.prepare('pragma temp_store = memory');
  const byDefault = db.prepare('pragma temp_store = default');
  // Neither may throw into groupCommit's cleanup, which must give the connection back. SQLite refuses
  // the change only inside a transaction on a connection with a temporary schema, which the server
  // never creates.
  const run = (stmt: Database.Statement) => {
    try {
      stmt.run();
    } catch {}
  };
  return { begin: () => run(inMemory), end: () => run(byDefault) };
}

/** `stmt` calling `then` after each successful run (Kysely's driver commits with `run`). */
function afterRun(stmt: Database.Statement, then: () => void): Database.Statement {
  const run = stmt.run.bind(stmt);
  return Object.assign(stmt, {
    run: (...params: unknown[]) => {
      const result = run(...params);
      then();
      return result;
    },
  });
}

/** `stmt` calling `first` before each run; what `first` throws is the statement's error. */
function beforeRun(stmt: Database.Statement, first: () => void): Database.Statement {
  const run = stmt.run.bind(stmt);
  return Object.assign(stmt, {
    run: (...params: unknown[]) => {
      first();
      return run(...params);
    },
  });
}

const TRANSACTION_CONTROL = /^\s*(begin|commit|end|rollback|savepoint|release)\b/i;

/**
 * Whether the writing connection changed anything since the last durable point, so that a
 * transaction that only read (or a rolled-back one) does not wait for an fsync it does not need.
 * Statements run one at a time on that connection, and `durableAfterCommit` is called right after
 * a COMMIT while the connection is still held: no other transaction's write can come in between.
 */
interface WriteTracker {
  wrote: () => void;
  take: () => boolean;
}
function writeTracker(): WriteTracker {
  let dirty = false;
  return {
    wrote: () => {
      dirty = true;
    },
    take: () => {
      const was = dirty;
      dirty = false;
      return was;
    },
  };
}

/** `stmt` calling `first` before each run or all (how Kysely and `statementsOf` execute). */
function beforeRunOrAll(stmt: Database.Statement, first: () => void): Database.Statement {
  const all = stmt.all.bind(stmt);
  return Object.assign(beforeRun(stmt, first), {
    all: (...params: unknown[]) => {
      first();
      return all(...params);
    },
  });
}

const statementsByAdapter = new WeakMap<object, SqliteDatabase>();

/**
 * Runs a statement synchronously on the one connection, skipping the driver's per-query promise
 * and result object: `runPerRow` calls it only while it holds that connection.
 */
function statementsOf(db: Kysely<any>): RunStatement | undefined {
  const statements = statementsByAdapter.get(db.getExecutor().adapter);
  // Outside a transaction the connection `runPerRow` was given is not the writer's yet (it is taken
  // per statement, sqliteReader.ts): such calls go through the driver.
  if (!statements || !inAnyOpenTransaction()) return undefined;
  return (source) => {
    const stmt = statements.prepare(source) as unknown as Database.Statement;
    if (stmt.reader) return (parameters) => stmt.all(parameters as unknown[]) as unknown[];
    return (parameters) => {
      stmt.run(parameters as unknown[]);
      return NO_ROWS;
    };
  };
}
const NO_ROWS: unknown[] = [];

export const sqlite: DialectSupport = {
  name: 'sqlite',
  search: sqliteSearch,
  // better-sqlite3 builds SQLite with its math functions (SQLITE_ENABLE_MATH_FUNCTIONS).
  log2: (value) => sql<number>`log2(${value})`,
  packedHistograms: sqliteHistograms,
  forBulkWork: async () => {},
  handles: (url) => !/^[a-z][a-z0-9+.-]*:\/\//i.test(url) || url.startsWith('sqlite:'),
  maxBoundParams: MAX_BOUND_PARAMS,
  isUniqueViolation: (err) =>
    err instanceof Error &&
    (['SQLITE_CONSTRAINT_UNIQUE', 'SQLITE_CONSTRAINT_PRIMARYKEY'].includes((err as { code?: string }).code ?? '') || /UNIQUE constraint failed/i.test(err.message)),
  // better-sqlite3's codes are extended result codes (SQLITE_IOERR_WRITE, SQLITE_BUSY_SNAPSHOT, …).
  outage(err) {
    const code = err instanceof Error ? (err as { code?: string }).code ?? '' : '';
    if (code === 'SQLITE_FULL') return 'full';
    if (/^SQLITE_(IOERR|BUSY|CANTOPEN|PROTOCOL)/.test(code)) return 'unavailable';
    return undefined;
  },
  columnTypes: { bool: 'integer', json: 'text', timestamp: 'text', float: 'real' },
  foldCase: (column) => sql<string>`lower(${sql.ref(column)})`,
  // One SQLite file, one server: the process is alone, so exclusive work just runs.
  sharedByServers: false,
  lateralOverArrays: false,
  exclusive: async (_db, _lock, work) => ({ ran: true, value: await work() }),
  lockForTransaction: async () => {},
  // What the bench's floor does: one fixed-shape statement, prepared once, bound per row inside the
  // caller's transaction. Cheaper than multi-row VALUES, whose 4,600-parameter statements Kysely
  // compiled and SQLite prepared anew on every batch (docs/benchmarks.md).
  async insertMany(db, table, rows) {
    await runPerRow(db, rows, (part) => db.insertInto(table).values(part), statementsOf(db), `insert into ${table}`);
  },
  writeMany: (db, rows, build, _rowsPerStatement, shape) => runPerRow(db, rows, build, statementsOf(db), shape),
  upsertMany: (db, table, rows, _types, finish, shape) => runPerRow(db, rows, (part) => finish(db.insertInto(table).values(part)), statementsOf(db), shape),
  async writeTogether(db, writes) {
    for (const w of writes) await runPerRow(db, w.rows, w.build, statementsOf(db), w.shape);
  },
  open(url, opts = {}) {
    const file = url.replace(/^sqlite:(\/\/)?/, '');
    createPrivate(file);
    const db = new Database(file);
    db.pragma('journal_mode = WAL');
    const onDisk = file !== ':memory:' && file !== '';
    // A 2xx answer means the write survives a crash or power loss (docs/decisions.md §2): FULL's
    // fsync of the WAL after each commit is done by `walSync`, off the event loop, before the answer.
    db.pragma(onDisk ? 'synchronous = NORMAL' : 'synchronous = FULL');
    db.pragma('foreign_keys = ON');
    db.pragma('busy_timeout = 5000');
    defineHistogramFunctions(db);
    const walSync = onDisk ? new WalSync(file, opts.syncCalls) : undefined;
    const writes = walSync && writeTracker();
    const durableAfterCommit = walSync && writes ? () => (writes.take() ? walSync.sync() : undefined) : undefined;
    // Checkpoints run on a thread of their own, not inside the COMMIT of a request (docs/benchmarks.md).
    if (onDisk) db.pragma(`wal_autocheckpoint = ${FALLBACK_AUTOCHECKPOINT_PAGES}`);
    // The WAL file keeps the size of its longest run without a checkpoint (a full disk, a long read):
    // when it starts over it gives back what is beyond this, so an outage does not cost space forever
    // (after a failed checkpoint the checkpointer truncates it to nothing: sqliteCheckpointer.ts).
    db.pragma(`journal_size_limit = ${WAL_SIZE_LIMIT_BYTES}`);
    const checkpointer = onDisk ? startCheckpointer(file, opts.warn) : undefined;
    const statements = withStatementCache(db, checkpointer, writes);
    const dialect = new SqliteDialect({ database: statements });
    // Reads outside transactions on a connection of their own, so they never wait for the writer
    // (sqliteReader.ts). An in-memory database is private to its connection: it has none.
    const readerDb = onDisk ? new Database(file) : undefined;
    if (readerDb) {
      readerDb.pragma('busy_timeout = 5000');
      readerDb.pragma('query_only = ON');
    }
    const reader = readerDb && new SqliteDialect({ database: withStatementCache(readerDb) });
    return {
      dialect: {
        // The adapter is shared by the database and its transactions: the key to find the statements.
        createAdapter: () => {
          const adapter = dialect.createAdapter();
          statementsByAdapter.set(adapter, statements);
          return adapter;
        },
        createDriver: () => (reader ? new ReadRoutingDriver(dialect.createDriver(), reader.createDriver(), durableAfterCommit) : dialect.createDriver()),
        createQueryCompiler: () => new SqliteCompilerWithoutRowLocks(),
        createIntrospector: (k) => dialect.createIntrospector(k),
      },
      plugins: [],
      durableAfterCommit,
      groupTransactions: groupJournalInMemory(db),
      close: async () => {
        await walSync?.close();
        await checkpointer?.stop();
      },
    };
  },
};
