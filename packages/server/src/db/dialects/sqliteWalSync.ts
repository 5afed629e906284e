import { close, fdatasync, fstatSync, fsync, open } from 'node:fs';
import { dirname } from 'node:path';
import { promisify } from 'node:util';

const openAsync = promisify(open);
const closeAsync = promisify(close);

/** The system calls a `WalSync` makes: Node's by default; tests count or fail them. */
export interface SyncCalls {
  open(path: string): Promise<number>;
  close(fd: number): Promise<void>;
  /** Makes the file's data (and the size needed to read it) durable: SQLite's own choice on Linux. */
  datasync(fd: number): Promise<void>;
  /** Makes a directory's entries durable. */
  fsync(fd: number): Promise<void>;
  /** Whether the file behind `fd` has been unlinked (SQLite deletes the WAL when the last connection closes). */
  unlinked(fd: number): boolean;
}

export const nodeSyncCalls: SyncCalls = {
  open: (path) => openAsync(path, 'r'),
  close: (fd) => closeAsync(fd),
  datasync: promisify(fdatasync),
  fsync: promisify(fsync),
  unlinked: (fd) => fstatSync(fd).nlink === 0,
};

/**
 * The WAL's fsync, done off the event loop (issue 30). With `synchronous = FULL` SQLite fsyncs the
 * WAL inside COMMIT, and better-sqlite3 runs COMMIT on the main thread: while the disk flushed a
 * 500-test batch (8–15 ms here), the server could neither parse the next batch nor answer a read.
 * A third of the batch path's wall time was that wait (docs/benchmarks.md).
 *
 * So the writing connection commits with `synchronous = NORMAL` (SQLite writes the WAL but does not
 * fsync it at commit) and the server fsyncs the WAL itself, on libuv's thread pool, before it
 * answers: FULL differs from NORMAL in WAL mode only by that fsync after each commit. SQLite still
 * syncs around checkpoints and when the WAL starts over, as in FULL. Until the sync has returned the
 * request is not answered, nor its after-commit work (webhooks) done, so a 2xx still means the write
 * survives a power loss (docs/decisions.md §2). Other requests may read the committed rows a few
 * milliseconds before they are durable, as they could before the answer with FULL.
 *
 * Concurrent callers share fsyncs: one that started before a caller's commit cannot cover it, so
 * such a caller waits for the next one, which every caller arriving meanwhile joins.
 */
export class WalSync {
  readonly #wal: string;
  readonly #dbFile: string;
  #fd: number | undefined;
  #directorySynced = false;
  #running: Promise<void> | undefined;
  #next: Promise<void> | undefined;

  constructor(
    dbFile: string,
    private readonly calls: SyncCalls = nodeSyncCalls,
  ) {
    this.#dbFile = dbFile;
    this.#wal = `${dbFile}-wal`;
  }

  /** Resolves once everything committed before the call is on disk. */
  sync(): Promise<void> {
    if (!this.#running) return this.#start();
    return (this.#next ??= this.#running.then(
      () => this.#startNext(),
      () => this.#startNext(),
    ));
  }

  #startNext(): Promise<void> {
    this.#next = undefined;
    // A caller that came after the previous sync had ended may have started one already: that one
    // began after every waiter's call too.
    return this.#running ?? this.#start();
  }

  #start(): Promise<void> {
    const run: Promise<void> = this.#syncOnce().finally(() => {
      if (this.#running === run) this.#running = undefined;
    });
    this.#running = run;
    return run;
  }

  async #syncOnce(): Promise<void> {
    const fd = await this.#walFd();
    if (fd === undefined) {
      // No WAL file (yet): whatever was committed went to the database file.
      const file = await this.calls.open(this.#dbFile);
      try {
        await this.calls.datasync(file);
      } finally {
        await this.calls.close(file);
      }
      return;
    }
    await this.calls.datasync(fd);
  }

  /**
   * The WAL stays one file while the server's connections are open (SQLite truncates it, and deletes
   * it only when the last connection closes), so its descriptor is kept. The first time, the data
   * dir is synced too: SQLite with FULL syncs the directory of a WAL it created at its first sync,
   * and with NORMAL that first sync would wait for a checkpoint.
   */
  async #walFd(): Promise<number | undefined> {
    if (this.#fd !== undefined && this.calls.unlinked(this.#fd)) {
      const stale = this.#fd;
      this.#fd = undefined;
      await this.calls.close(stale).catch(() => {});
    }
    if (this.#fd === undefined) {
      try {
        this.#fd = await this.calls.open(this.#wal);
      } catch (err) {
        if ((err as { code?: string }).code === 'ENOENT') return undefined;
        throw err;
      }
    }
    if (!this.#directorySynced) {
      const dir = await this.calls.open(dirname(this.#wal));
      try {
        await this.calls.fsync(dir);
      } finally {
        await this.calls.close(dir);
      }
      this.#directorySynced = true;
    }
    return this.#fd;
  }

  /** Closes the kept descriptor (the database is closing). */
  async close(): Promise<void> {
    await this.#running?.catch(() => {});
    await this.#next?.catch(() => {});
    const fd = this.#fd;
    this.#fd = undefined;
    if (fd !== undefined) await this.calls.close(fd).catch(() => {});
  }
}
