import { SelectQueryNode, type CompiledQuery, type DatabaseConnection, type Driver, type QueryResult, type TransactionSettings } from 'kysely';

/**
 * SQLite with a second connection for reads (issue 30). Kysely's SQLite driver has one connection,
 * held by a transaction from BEGIN to COMMIT; a page view had to wait for whatever write (a group
 * commit's members, a 500-test batch) held it. In WAL mode a reader sees the last committed state
 * without waiting for the writer, so:
 *
 * - a SELECT outside any transaction runs on the read connection;
 * - everything else (writes, raw statements, every statement of a transaction) runs on the writer,
 *   taken for the one statement or, by `beginTransaction`, until the commit.
 *
 * Outside a transaction nothing uncommitted is visible anyway, and a request's own committed writes
 * are seen by its later reads: each read statement starts a fresh WAL snapshot.
 */
export class ReadRoutingDriver implements Driver {
  constructor(
    private readonly writer: Driver,
    private readonly reader: Driver,
    /** What a write outside any transaction awaits before it counts as done (sqliteWalSync.ts). */
    private readonly durableAfterCommit?: () => Promise<void> | undefined,
  ) {}

  async init() {
    await this.writer.init();
    await this.reader.init();
  }

  /** No lock yet: a connection that takes the writer per statement, or for its transaction. */
  async acquireConnection(): Promise<DatabaseConnection> {
    return new RoutedConnection(this.writer, this.reader, this.durableAfterCommit);
  }

  async beginTransaction(conn: DatabaseConnection, settings: TransactionSettings) {
    const routed = conn as RoutedConnection;
    const pinned = await routed.pin();
    try {
      await this.writer.beginTransaction(pinned, settings);
    } catch (err) {
      await routed.unpin();
      throw err;
    }
  }

  async commitTransaction(conn: DatabaseConnection) {
    await this.writer.commitTransaction((conn as RoutedConnection).pinned!);
  }

  async rollbackTransaction(conn: DatabaseConnection) {
    await this.writer.rollbackTransaction((conn as RoutedConnection).pinned!);
  }

  async releaseConnection(conn: DatabaseConnection) {
    await (conn as RoutedConnection).unpin();
  }

  async destroy() {
    await this.reader.destroy();
    await this.writer.destroy();
  }
}

class RoutedConnection implements DatabaseConnection {
  pinned: DatabaseConnection | undefined;

  constructor(
    private readonly writer: Driver,
    private readonly reader: Driver,
    private readonly durableAfterCommit?: () => Promise<void> | undefined,
  ) {}

  async pin(): Promise<DatabaseConnection> {
    return (this.pinned ??= await this.writer.acquireConnection());
  }

  async unpin() {
    const held = this.pinned;
    this.pinned = undefined;
    if (held) await this.writer.releaseConnection(held);
  }

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    if (this.pinned) return this.pinned.executeQuery<R>(query);
    if (SelectQueryNode.is(query.query)) return this.#once<R>(this.reader, query);
    // A statement of its own on the writer commits by itself: durable before it counts as done.
    let durable: Promise<void> | undefined;
    const result = await this.#once<R>(this.writer, query, () => (durable = this.durableAfterCommit?.()));
    await durable;
    return result;
  }

  /** `query` on a connection of `driver` taken for it alone; `done` runs before that connection is given back. */
  async #once<R>(driver: Driver, query: CompiledQuery, done?: () => void): Promise<QueryResult<R>> {
    const conn = await driver.acquireConnection();
    try {
      const result = await conn.executeQuery<R>(query);
      done?.();
      return result;
    } finally {
      await driver.releaseConnection(conn);
    }
  }

  /** Only SELECTs stream (Kysely's SQLite driver refuses the rest): the transaction's connection, else the reader. */
  async *streamQuery<R>(query: CompiledQuery, chunkSize?: number): AsyncIterableIterator<QueryResult<R>> {
    if (this.pinned) {
      yield* this.pinned.streamQuery<R>(query, chunkSize);
      return;
    }
    const conn = await this.reader.acquireConnection();
    try {
      yield* conn.streamQuery<R>(query, chunkSize);
    } finally {
      await this.reader.releaseConnection(conn);
    }
  }
}
