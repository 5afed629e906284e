import { CompiledQuery, type DatabaseConnection, type Dialect, type Driver, type QueryResult, type TransactionSettings } from 'kysely';
import type pg from 'pg';
import type { LaterStep } from '../later.js';
import { Pipeline } from './postgresPipeline.js';

/**
 * Fewer round trips per transaction on PostgreSQL. A statement whose result nobody reads (BEGIN,
 * a COPY of results, the aggregates' increments, the Idempotency-Key's stored answer) is held back
 * on its connection (`later`) and sent in one pipeline (postgresPipeline.ts) with the next
 * statement, whose result is awaited, or with the COMMIT. A 500-test batch made 12 round trips and
 * now makes 6: each cost both processes a send, a receive and a wake-up, whatever its size
 * (docs/benchmarks.md, thirtieth session).
 *
 * What it changes for the code: a held-back statement's error surfaces at the next statement sent,
 * in the same transaction (PostgreSQL skips the rest of the pipeline), so the transaction fails as
 * it would have; and a ROLLBACK drops what is still held back, which is what rolling it back does.
 */
export class PipelinedConnection implements DatabaseConnection {
  #pending: LaterStep[] = [];
  /** The pending steps begin with BEGIN: nothing of the transaction has reached PostgreSQL. */
  #unbegun = false;

  constructor(
    readonly inner: DatabaseConnection,
    private readonly types: pg.CustomTypesConfig,
  ) {}

  /** Holds `step` back until the next statement or COMMIT (db/later.ts). */
  later(step: LaterStep): void {
    this.#pending.push(step);
  }

  begin(): void {
    this.#pending.push({ sql: 'begin', parameters: [] });
    this.#unbegun = true;
  }

  async executeQuery<R>(compiled: CompiledQuery): Promise<QueryResult<R>> {
    // ROLLBACK, or ROLLBACK TO SAVEPOINT: every savepoint statement sends what is held back, so
    // whatever is still pending was written after the savepoint being rolled back to.
    if (/^rollback\b/i.test(compiled.sql)) {
      const unbegun = this.#unbegun;
      this.drop();
      if (unbegun) return { rows: [] };
      return this.inner.executeQuery(compiled);
    }
    if (this.#pending.length === 0) return this.inner.executeQuery(compiled);
    const sent = this.#send([{ sql: compiled.sql, parameters: compiled.parameters }]) as Promise<QueryResult<R>>;
    if (compiled.sql !== 'commit') return sent;
    // A COMMIT that failed ends its transaction; one skipped because a write before it failed
    // leaves it open and aborted, which must not go back to the pool so: roll it back here.
    return sent.catch(async (err: unknown) => {
      await this.inner.executeQuery(CompiledQuery.raw('rollback')).catch(() => {});
      throw err;
    });
  }

  /** Sends what is held back, and `steps` after it, now. */
  async run(...steps: LaterStep[]): Promise<void> {
    if (this.#pending.length + steps.length > 0) await this.#send(steps);
  }

  async *streamQuery<R>(compiled: CompiledQuery, chunkSize?: number): AsyncIterableIterator<QueryResult<R>> {
    await this.run();
    yield* this.inner.streamQuery<R>(compiled, chunkSize);
  }

  /** Forgets what is held back (the transaction is ending without it). */
  drop(): void {
    this.#pending = [];
    this.#unbegun = false;
  }

  #send(steps: LaterStep[]) {
    const all = [...this.#pending, ...steps];
    this.drop();
    // Kysely's connection hands a non-string statement to `client.query`, which runs a submittable.
    return this.inner.executeQuery({ sql: new Pipeline(all, this.types) as unknown as string, parameters: [], query: undefined as never, queryId: undefined as never });
  }
}

/** Kysely's PostgreSQL driver, its connections pipelined and its BEGIN held back. */
class PipeliningDriver implements Driver {
  readonly #wrapped = new WeakMap<DatabaseConnection, PipelinedConnection>();

  constructor(
    private readonly inner: Driver,
    private readonly types: pg.CustomTypesConfig,
  ) {}

  init() {
    return this.inner.init();
  }
  async acquireConnection() {
    const conn = await this.inner.acquireConnection();
    let wrapped = this.#wrapped.get(conn);
    if (!wrapped) this.#wrapped.set(conn, (wrapped = new PipelinedConnection(conn, this.types)));
    return wrapped;
  }
  async beginTransaction(conn: DatabaseConnection, settings: TransactionSettings) {
    if (settings.isolationLevel || settings.accessMode) return this.inner.beginTransaction(conn, settings);
    (conn as PipelinedConnection).begin();
  }
  commitTransaction(conn: DatabaseConnection) {
    return this.inner.commitTransaction(conn);
  }
  rollbackTransaction(conn: DatabaseConnection) {
    return this.inner.rollbackTransaction(conn);
  }
  async savepoint(...args: Parameters<NonNullable<Driver['savepoint']>>) {
    return this.inner.savepoint!(...args);
  }
  async rollbackToSavepoint(...args: Parameters<NonNullable<Driver['rollbackToSavepoint']>>) {
    return this.inner.rollbackToSavepoint!(...args);
  }
  async releaseSavepoint(...args: Parameters<NonNullable<Driver['releaseSavepoint']>>) {
    return this.inner.releaseSavepoint!(...args);
  }
  async releaseConnection(conn: DatabaseConnection) {
    const wrapped = conn as PipelinedConnection;
    wrapped.drop();
    return this.inner.releaseConnection(wrapped.inner);
  }
  destroy() {
    return this.inner.destroy();
  }
}

/** `dialect` with its driver pipelining (PipeliningDriver). */
export function pipelining(dialect: Dialect, types: pg.CustomTypesConfig): Dialect {
  return {
    createAdapter: () => dialect.createAdapter(),
    createDriver: () => new PipeliningDriver(dialect.createDriver(), types),
    createQueryCompiler: () => dialect.createQueryCompiler(),
    createIntrospector: (db) => dialect.createIntrospector(db),
  };
}
