import type { Dialect, Expression, Kysely, KyselyPlugin, RawBuilder } from 'kysely';
import type { BuildWrite, FinishInsert } from './perRow.js';
import type { SearchSupport } from './search.js';
import type { SyncCalls } from './dialects/sqliteWalSync.js';

/** SQL over packed duration histograms (`DialectSupport.packedHistograms`). */
export interface PackedHistogramSql {
  /** The aggregate: the sum of a group's packed histograms. */
  sum(value: Expression<Uint8Array>): RawBuilder<Buffer>;
  /** The sum of two packed histograms. */
  add(a: Expression<Uint8Array>, b: Expression<Uint8Array>): RawBuilder<Buffer>;
  /** The histogram of one result of `durationMs` (bucketed by insights/buckets.ts `bucketOf`). */
  one(durationMs: Expression<number>): RawBuilder<Buffer>;
}

/**
 * Everything that differs between the databases the server runs on. Services and repositories never
 * ask which dialect is active: they write portable Kysely queries, and what cannot be portable is
 * answered here (one file per dialect under `dialects/`).
 */
export interface DialectSupport {
  readonly name: 'sqlite' | 'postgres';
  /** Whether `url` (`--database-url`) names a database of this dialect. */
  handles(url: string): boolean;
  /** Most bound values one statement may carry; `db/batch.ts` keeps every statement below the smallest. */
  readonly maxBoundParams: number;
  /** A failed insert/update that hit a unique index or primary key. */
  isUniqueViolation(err: unknown): boolean;
  /**
   * An error of this driver that is an outage, not a fault of the request: `full` (the disk is full)
   * or `unavailable` (restarting, shutting down, connection lost); undefined otherwise.
   */
  outage(err: unknown): 'full' | 'unavailable' | undefined;
  /**
   * Column types of the portable representations (see `values.ts`): booleans are 0/1 integers, JSON
   * is text, timestamps are ISO-8601 UTC text, so rows read the same on every dialect. `float` is
   * SQLite's 8-byte `real`; PostgreSQL's `real` is 4 bytes, so there it is `double precision`.
   */
  readonly columnTypes: { bool: string; json: string; timestamp: string; float: 'real' | 'double precision' };
  /**
   * `lower(column)` folding as the database's locale does. PostgreSQL's text columns compare by
   * bytes (migration 029), and under "C" its `lower` folds ASCII only, so there the column is folded
   * under the database's own collation; SQLite's `lower` folds ASCII only anyway. Not for the
   * columns with a trigram index on `lower(column)` (SEARCHED_COLUMNS): the index would not match.
   */
  foldCase(column: string): RawBuilder<string>;
  /**
   * Whether several server processes may share one database of this dialect. Where they may, state
   * that must be common to all of them (rate-limit counters) lives in the database; an embedded
   * SQLite file belongs to one server, which keeps such counters in memory at no write cost.
   */
  readonly sharedByServers: boolean;
  /**
   * Runs `work` only if no other server runs work under the same `lock` right now; resolves
   * `{ ran: false }` without waiting otherwise. `work` uses the database as usual (not a transaction).
   */
  exclusive<T>(db: Kysely<any>, lock: string, work: () => Promise<T>): Promise<{ ran: true; value: T } | { ran: false }>;
  /**
   * Takes `lock` until the caller's transaction ends, waiting while another transaction holds it
   * (PostgreSQL: a transaction-scoped advisory lock). SQLite runs one writing transaction at a time
   * already, so there it takes nothing. Take it before any row lock, so that waiting for it can
   * never be part of a deadlock.
   */
  lockForTransaction(db: Kysely<any>, lock: string): Promise<void>;
  /**
   * Inserts rows of one table, all with the same columns: on SQLite one prepared one-row INSERT run
   * per row (as `writeMany`), on PostgreSQL `COPY … FROM STDIN` (the rows as one stream), which
   * inside a transaction is held back until its next statement (db/later.ts): its failure fails that one.
   */
  insertMany(db: Kysely<any>, table: string, rows: readonly Record<string, unknown>[]): Promise<void>;
  /**
   * Runs a multi-row write that `build` makes for the rows it is given (an upsert with RETURNING,
   * say) over all `rows`, returning the RETURNed rows. SQLite runs one prepared one-row statement
   * per row (`perRow.ts`: binding is cheaper there than compiling and preparing a statement of
   * thousands of parameters per call); PostgreSQL sends statements of `rowsPerStatement` rows,
   * since each statement is a round trip to the server.
   * `shape` names the statement for a dialect that can keep it compiled (`perRow.ts`).
   */
  writeMany(db: Kysely<any>, rows: readonly Record<string, unknown>[], build: BuildWrite, rowsPerStatement: number, shape?: string): Promise<unknown[]>;
  /**
   * Runs `finish(insert)` over all `rows`, where `insert` is an INSERT of rows into `table` for
   * `finish` to complete (its ON CONFLICT and RETURNING), and returns the RETURNed rows. `types`
   * names each column of the rows with its PostgreSQL type, in the rows' key order. PostgreSQL gets
   * the rows as one array per column (`insert … select * from unnest($1::text[], …)`): a statement
   * whose text and plan do not grow with its rows. As a VALUES list of 500 rows (5,000 parameters)
   * the case upsert cost PostgreSQL ≈ 10 µs of CPU per row and the server ≈ 7; as arrays ≈ 7 and
   * ≈ 4.6 (docs/benchmarks.md). SQLite runs it as `writeMany` does: one prepared one-row statement
   * per row, kept compiled under `shape`.
   */
  upsertMany(db: Kysely<any>, table: string, rows: readonly Record<string, unknown>[], types: Readonly<Record<string, string>>, finish: FinishInsert, shape: string): Promise<unknown[]>;
  /**
   * Runs independent multi-row writes (each as `writeMany` would, their RETURNING unread), in as few
   * statements as the dialect can. PostgreSQL sends them as one statement of data-modifying WITH
   * queries when each fits in one statement and together they stay below half the bound-value
   * limit: a round trip each fewer, and inside a transaction they are held back until its next
   * statement (db/later.ts). SQLite runs them one after the other, as `writeMany` does.
   */
  writeTogether(db: Kysely<any>, writes: readonly TogetherWrite[]): Promise<void>;
  /**
   * The base-2 logarithm of a positive double, as a double (db/math.ts). SQLite has `log2()`;
   * PostgreSQL has none for doubles (its `log(2, x)` is numeric: exact but far slower per row), so
   * there it is `ln(x) / ln(2)`. Either is within a few units in the last place of the true value,
   * not bit-equal to JavaScript's `Math.log2`: callers that must agree with it exactly check for
   * values near where it matters (insights/upkeep.ts).
   */
  log2(value: Expression<number>): RawBuilder<number>;
  /**
   * Readies the current transaction for a few statements that group millions of rows (a rebuild,
   * db/bulk.ts `forBulkWork`). PostgreSQL's default 4 MB per sort or hash made such a GROUP BY sort
   * on disk, three times slower than hashing in memory; SQLite has nothing to change.
   */
  forBulkWork(db: Kysely<any>): Promise<void>;
  /**
   * SQL that adds up packed duration histograms (insights/histogram.ts `addPacked`), where the
   * database can call JavaScript: SQLite runs functions of the process in its statements, so the
   * insights fold is a few set-based statements (insights/foldInSql.ts). Absent (PostgreSQL): the
   * fold reads the rows and adds them up in JavaScript.
   */
  readonly packedHistograms?: PackedHistogramSql;
  /**
   * Whether a statement can run a subquery per element of an array parameter (`unnest($1::text[])`
   * with a LATERAL join), each with its own ORDER BY and LIMIT, as one statement whose text does
   * not grow with the array. PostgreSQL plans a UNION ALL of one such arm per key at about 0.6 ms
   * an arm (57 ms for 100 cases of a flakiness recompute, 75 s for a 50,000-case run); SQLite has
   * neither, and prepares the UNION ALL cheaply.
   */
  readonly lateralOverArrays: boolean;
  /** The text index `GET /search` reads (db/search.ts). */
  readonly search: SearchSupport;
  /**
   * Opens the database. `plugins` carry the dialect's query rewrites (none at present: SQLite's
   * query compiler drops `FOR UPDATE`, as it locks the whole database for a writing transaction
   * where PostgreSQL locks rows).
   */
  open(url: string, opts?: OpenOptions): OpenedDialect;
}

/** One write of `DialectSupport.writeTogether`: `writeMany`'s arguments. */
export interface TogetherWrite {
  rows: readonly Record<string, unknown>[];
  build: BuildWrite;
  rowsPerStatement: number;
  shape?: string;
}

export interface OpenOptions {
  warn?: (message: string, detail?: unknown) => void;
  /** The system calls of SQLite's WAL sync (tests observe them; sqliteWalSync.ts). */
  syncCalls?: SyncCalls;
}

export interface OpenedDialect {
  dialect: Dialect;
  plugins: KyselyPlugin[];
  close?: () => Promise<void>;
  /**
   * Where a commit is not yet durable when COMMIT returns (SQLite's WAL, synced off the event loop:
   * sqliteWalSync.ts): called right after an outermost COMMIT, while its connection is still held,
   * it returns what to await before the transaction's effects may be acknowledged, or undefined
   * when nothing is left to sync (the transaction wrote nothing).
   */
  durableAfterCommit?: () => Promise<void> | undefined;
  /**
   * Called on the connection of each group-commit transaction (groupCommit.ts), right before its
   * BEGIN and right after its COMMIT or ROLLBACK: its members are small writes, each in a savepoint
   * (SQLite keeps their savepoint journal in memory there).
   */
  groupTransactions?: GroupTransactions;
}

export interface GroupTransactions {
  begin(): void;
  end(): void;
}
