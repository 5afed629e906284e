import { AsyncLocalStorage } from 'node:async_hooks';
import { CompiledQuery, type DatabaseConnection, type Dialect, type Driver, type Kysely, type TransactionSettings } from 'kysely';
import type { Db } from './database.js';
import type { GroupTransactions } from './dialect.js';
import type { Joint } from './jointWrites.js';

/**
 * The "current transaction" of an async call chain. While `inTransaction(db, fn)` runs, every query
 * made through `db` anywhere below `fn` (services and repositories keep their signatures and their
 * `db`) runs on the transaction's connection, and a nested `db.transaction()` becomes a savepoint
 * inside it: it joins the outer transaction, and rolling it back undoes only its own part.
 */
export interface Scope {
  driver: ScopedDriver;
  conn: DatabaseConnection;
  savepoints: string[];
  seq: number;
  /** Set once committed or rolled back: late async work started inside must not reuse the connection. */
  done: boolean;
  afterCommit: (() => void | Promise<void>)[];
  /**
   * Set for a request's work inside a shared group transaction (`groupCommit.ts`): `broken` once a
   * savepoint could not be rolled back, i.e. the transaction may hold that request's partial writes
   * (or, on PostgreSQL, be aborted, where COMMIT silently rolls back): the group must not commit.
   */
  group?: { broken: boolean };
  /**
   * Set while the calls of a joint member run concurrently on this scope (`jointWrites.ts`): they
   * share its connection, so none may open a savepoint (savepoints are a stack).
   */
  joint?: Joint;
}
export const current = new AsyncLocalStorage<Scope>();

export class ScopedDriver implements Driver {
  #init: Promise<void> | undefined;
  constructor(
    readonly inner: Driver,
    /** The dialect's `durableAfterCommit` (db/dialect.ts): none where COMMIT is durable when it returns. */
    private readonly durable?: () => Promise<void> | undefined,
    /** The dialect's `groupTransactions` (db/dialect.ts), for groupCommit.ts. */
    readonly groupTransactions?: GroupTransactions,
  ) {}

  /**
   * Commits the outermost transaction on `conn` and returns what to await, once `conn` is given
   * back, before its effects are acknowledged (undefined: nothing). Taken before the connection is
   * released, so that no other transaction's writes can be counted as this one's.
   */
  async commitOutermost(conn: DatabaseConnection): Promise<{ durable?: Promise<void> }> {
    await this.inner.commitTransaction(conn);
    // Wrapped: an async function returning the promise itself would wait for it here.
    const durable = this.durable?.();
    // Awaited by the caller, maybe after other awaits: never an unhandled rejection meanwhile.
    durable?.catch(() => {});
    return { durable };
  }

  #scope(conn?: DatabaseConnection): Scope | undefined {
    const s = current.getStore();
    return s && s.driver === this && !s.done && (conn === undefined || s.conn === conn) ? s : undefined;
  }

  init() {
    return (this.#init ??= this.inner.init());
  }
  async acquireConnection() {
    return this.#scope()?.conn ?? this.inner.acquireConnection();
  }
  async releaseConnection(conn: DatabaseConnection) {
    if (!this.#scope(conn)) await this.inner.releaseConnection(conn);
  }
  async beginTransaction(conn: DatabaseConnection, settings: TransactionSettings) {
    const s = this.#scope(conn);
    if (!s) return this.inner.beginTransaction(conn, settings);
    // Fails the joint member, whose calls then run again one by one, each in its own savepoint.
    if (s.joint) throw new Error('a savepoint inside joint writes');
    const name = `sp_${++s.seq}`;
    s.savepoints.push(name);
    await conn.executeQuery(CompiledQuery.raw(`savepoint ${name}`));
  }
  async commitTransaction(conn: DatabaseConnection) {
    const s = this.#scope(conn);
    // Kysely's own outermost transaction releases the connection after this: the sync is awaited here.
    if (!s) return void (await (await this.commitOutermost(conn)).durable);
    // Popped once released: a RELEASE that fails (a write held back until it failed: db/later.ts)
    // leaves the savepoint for the rollback that follows.
    await conn.executeQuery(CompiledQuery.raw(`release savepoint ${s.savepoints.at(-1)!}`));
    s.savepoints.pop();
  }
  async rollbackTransaction(conn: DatabaseConnection) {
    const s = this.#scope(conn);
    if (!s) return this.inner.rollbackTransaction(conn);
    const name = s.savepoints.pop()!;
    try {
      await conn.executeQuery(CompiledQuery.raw(`rollback to savepoint ${name}`));
      await conn.executeQuery(CompiledQuery.raw(`release savepoint ${name}`));
    } catch (err) {
      if (s.group) s.group.broken = true;
      throw err;
    }
  }
  destroy() {
    return this.inner.destroy();
  }

  /** Runs `fn` in a new outermost transaction on a connection of its own. */
  async run<T>(fn: () => Promise<T>): Promise<T> {
    await this.init();
    const conn = await this.inner.acquireConnection();
    const scope: Scope = { driver: this, conn, savepoints: [], seq: 0, done: false, afterCommit: [] };
    let result: T;
    let durable: Promise<void> | undefined;
    try {
      await this.inner.beginTransaction(conn, {});
      try {
        result = await current.run(scope, fn);
      } catch (err) {
        scope.done = true;
        // SQLite may have rolled back already (SQLITE_FULL ends the transaction): the ROLLBACK then
        // fails with "no transaction is active", which must not replace the error that ended it
        // (a 507 answer would become a 500).
        await this.inner.rollbackTransaction(conn).catch(() => {});
        throw err;
      }
      scope.done = true;
      ({ durable } = await this.commitOutermost(conn));
    } finally {
      scope.done = true;
      await this.inner.releaseConnection(conn);
    }
    // With the connection back, so the next transaction runs while the disk syncs; nothing after
    // the commit happens (webhooks, the answer) until it is durable.
    await durable;
    // Once the connection is back: SQLite has only one, and work after the commit may query.
    for (const cb of scope.afterCommit) await cb();
    return result;
  }
}

const drivers = new WeakMap<Db, ScopedDriver>();

/** Wraps a dialect so that databases opened with it take part in `inTransaction`. */
export function scopedDialect(
  dialect: Dialect,
  durableAfterCommit?: () => Promise<void> | undefined,
  groupTransactions?: GroupTransactions,
): { dialect: Dialect; register(db: Db): void } {
  let driver: ScopedDriver | undefined;
  return {
    dialect: {
      createAdapter: () => dialect.createAdapter(),
      createDriver: () => (driver = new ScopedDriver(dialect.createDriver(), durableAfterCommit, groupTransactions)),
      createQueryCompiler: () => dialect.createQueryCompiler(),
      createIntrospector: (db) => dialect.createIntrospector(db),
    },
    register(db) {
      if (!driver) throw new Error('scopedDialect: the database has not created its driver');
      drivers.set(db, driver);
    },
  };
}

/** The driver of a database opened by openDatabase() (for `groupCommit.ts`). */
export function driverOf(db: Db): ScopedDriver {
  const driver = drivers.get(db);
  if (!driver) throw new Error('this database was not opened by openDatabase()');
  return driver;
}

/**
 * Whether this async call chain holds a connection in a live transaction of any database: a
 * dialect may then run statements straight on that connection (SQLite's `runPerRow` fast path).
 */
export function inAnyOpenTransaction(): boolean {
  const s = current.getStore();
  return s !== undefined && !s.done;
}

/** The connection of the live `inTransaction` of `db` this call chain is inside, if any. */
export function openConnectionOf(db: Kysely<any>): DatabaseConnection | undefined {
  const s = current.getStore();
  return s !== undefined && s.driver === drivers.get(db as Db) && !s.done ? s.conn : undefined;
}

/** Whether this async call chain is inside a live `inTransaction` of `db`. */
function inOpenTransaction(db: Db): boolean {
  return openConnectionOf(db) !== undefined;
}

/**
 * Runs `fn` in one transaction that every query through `db` below it joins. Inside an enclosing
 * `inTransaction`, it is a savepoint of that transaction instead.
 */
export async function inTransaction<T>(db: Db, fn: () => Promise<T>): Promise<T> {
  const driver = drivers.get(db);
  if (!driver) throw new Error('inTransaction needs a database opened by openDatabase()');
  if (inOpenTransaction(db)) return db.transaction().execute(() => fn());
  return driver.run(fn);
}

/**
 * Runs `fn` all-or-nothing: inside the current transaction of `db` when there is one, with no
 * savepoint, else in a transaction of its own. Use it only where any failure of `fn` fails the
 * enclosing transaction too (the error is not caught and the work carried on), as with a request's
 * writes under its Idempotency-Key. A savepoint would cost SQLite a copy of every page `fn` writes
 * (its sub-journal): ≈ 9 µs per stored result in a 500-test batch (docs/benchmarks.md).
 */
export async function joinTransaction<T>(db: Db, fn: () => Promise<T>): Promise<T> {
  return inOpenTransaction(db) ? fn() : inTransaction(db, fn);
}

/** A savepoint inside the current transaction of `db`, so `fn`'s failure undoes only its own writes; outside one, just `fn`. */
export async function inSavepoint<T>(db: Db, fn: () => Promise<T>): Promise<T> {
  return inOpenTransaction(db) ? db.transaction().execute(() => fn()) : fn();
}

/**
 * Work with effects outside the database (mail, in-memory caches) that must only happen if the
 * surrounding transaction commits: deferred until it does, run at once when there is none.
 */
export function afterCommit(fn: () => void): void {
  const s = current.getStore();
  if (s && !s.done) s.afterCommit.push(fn);
  else fn();
}

/**
 * Writes that must happen outside the surrounding transaction, once it has committed, because
 * their failure must not undo it (on PostgreSQL any failed statement aborts the transaction). The
 * transaction's caller awaits them after the commit; with no transaction they run at once.
 */
export async function whenCommitted(fn: () => Promise<void>): Promise<void> {
  const s = current.getStore();
  if (s && !s.done) s.afterCommit.push(fn);
  else await fn();
}
