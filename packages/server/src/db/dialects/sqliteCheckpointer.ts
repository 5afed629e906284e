import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import Database from 'better-sqlite3';

/**
 * WAL pages after which the server's own connection checkpoints anyway: the fallback should the
 * background checkpointer be gone or fall behind (≈ 40 MB of WAL at 4 KB pages).
 */
export const FALLBACK_AUTOCHECKPOINT_PAGES = 10_000;

/** Without a commit to react to, the checkpointer still looks this often (writes outside a transaction). */
const IDLE_MS = 1_000;
/** Checkpoints at most this often: pages that every commit rewrites (the indexes' hot pages) are copied once per gap. */
const MIN_GAP_MS = 100;

/** Int32 slots shared with the thread: commits counted by the server, and the request to stop. */
const COMMITS = 0;
const STOP = 1;

/** After a failed checkpoint (a full disk, an I/O error) a new thread tries again this much later. */
const RETRY_MS = 1_000;

/**
 * What the WAL keeps of its size when it starts over (`journal_size_limit`). SQLite truncates the
 * WAL to this at each restart; a smaller limit made every cycle of sustained ingestion grow the file
 * again, and writes that extend a file cost the kernel more than writes over blocks it has (4 MiB
 * against 64 MiB: 2–8% more batch ingestion with 64, in 8 of 8 paired rounds; docs/benchmarks.md).
 */
export const WAL_KEPT_MIB = 64;
/** How long the truncating checkpoint after an outage may wait for readers before trying again. */
const TRIM_WAIT_MS = 200;

// CommonJS run by `new Worker(…, { eval: true })`: the bundle needs no second entry file. The
// thread has nothing else to do, so it blocks in Atomics.wait until a commit (or the idle timeout).
// A failed checkpoint (SQLITE_FULL when the disk is full: a checkpoint may grow the database file)
// ends the thread, which is reported and started again with a fresh connection: after a failed
// write SQLite's connection can keep failing even once there is room again, and the thread must
// outlive the outage, or the WAL grows unchecked after it (issue 26).
const WORKER_SOURCE = `
const { workerData, parentPort } = require('node:worker_threads');
const Database = require(workerData.driver);
const signal = new Int32Array(workerData.signal);
const db = new Database(workerData.file, { fileMustExist: true });
// The checkpoint writes the database file and then lets the WAL be reused: with FULL it fsyncs the
// file first, so no acknowledged write depends on pages that only the OS's cache holds.
db.pragma('synchronous = FULL');
const pause = new Int32Array(new SharedArrayBuffer(4));
let last = 0;
let first = true;
// Started again after a failure: the WAL may have grown while checkpoints failed. Once a
// checkpoint succeeds, one that truncates the WAL gives that space back (journal_size_limit keeps
// up to WAL_KEPT_MIB). TRUNCATE waits for readers and holds writers back meanwhile: tried with a
// short wait, and again at the next turn until it gets through.
let trim = workerData.trim;
while (Atomics.load(signal, ${STOP}) === 0) {
  const seen = Atomics.load(signal, ${COMMITS});
  const wait = last + workerData.minGapMs - performance.now();
  if (wait > 0) Atomics.wait(pause, 0, 0, wait);
  try {
    db.pragma('wal_checkpoint(PASSIVE)');
    if (trim) {
      const timeout = db.pragma('busy_timeout', { simple: true });
      db.pragma('busy_timeout = ${TRIM_WAIT_MS}');
      try {
        trim = db.pragma('wal_checkpoint(TRUNCATE)')[0].busy !== 0;
      } finally {
        db.pragma('busy_timeout = ' + timeout);
      }
    }
  } catch (err) {
    parentPort.postMessage({ failed: (err.code ? err.code + ': ' : '') + err.message });
    break;
  }
  if (first) parentPort.postMessage({ checkpointed: true });
  first = false;
  last = performance.now();
  Atomics.wait(signal, ${COMMITS}, seen, workerData.idleMs);
}
try {
  db.close();
} catch {}
`;

export interface Checkpointer {
  /** Tells the thread a transaction committed: it checkpoints while the server goes on with the next request. */
  committed(): void;
  /**
   * Called before a write transaction begins. While checkpoints fail (a full disk) it checkpoints
   * first and throws the checkpoint's error (SQLITE_FULL: the request is refused with 507) rather
   * than let the write grow the WAL, which cannot start over until a checkpoint completes.
   */
  beforeWrite(): void;
  stop(): Promise<void>;
}

/**
 * Checkpoints a WAL-mode SQLite file from a thread of its own. A checkpoint copies the WAL's pages
 * into the database file (reads, writes and an fsync); left to SQLite it runs inside the COMMIT of
 * whichever write crosses the threshold, on the thread that serves requests, which waits for it.
 * Here it follows each commit on the other core, usually done before the next write begins, so the
 * WAL starts over small; the server's connection keeps a high threshold as the fallback. Measured
 * in docs/benchmarks.md.
 */
export function startCheckpointer(file: string, warn: (message: string, detail?: unknown) => void = () => {}): Checkpointer {
  const driver = createRequire(import.meta.url).resolve('better-sqlite3');
  const signal = new Int32Array(new SharedArrayBuffer(8));
  let stopping = false;
  let failing = false;
  let exited: Promise<void> = Promise.resolve();
  let restart: NodeJS.Timeout | undefined;
  let thread: Worker | undefined;
  const recovered = () => {
    if (failing) warn('SQLite checkpoints succeed again');
    failing = false;
  };
  const spawn = () => {
    // Started again after a failure (not at the first start): its first checkpoints truncate the WAL.
    const trim = thread !== undefined;
    const worker = (thread = new Worker(WORKER_SOURCE, { eval: true, workerData: { file, driver, signal: signal.buffer, idleMs: IDLE_MS, minGapMs: MIN_GAP_MS, trim } }));
    // Never what keeps a process alive; while it is down, SQLite's own checkpoints (the fallback) remain.
    worker.unref();
    worker.on('message', (m: { failed?: string; checkpointed?: boolean }) => {
      if (m.failed && !failing) warn(`SQLite checkpoints are failing (${m.failed}); the WAL grows until they succeed again`);
      if (m.failed) failing = true;
      if (m.checkpointed) recovered();
    });
    worker.on('error', (err) => {
      if (!failing) warn('the SQLite checkpoint thread failed; it is started again', err);
      failing = true;
    });
    exited = new Promise<void>((resolve) =>
      worker.once('exit', () => {
        if (!stopping) {
          restart = setTimeout(spawn, RETRY_MS);
          restart.unref();
        }
        resolve();
      }),
    );
  };
  spawn();
  return {
    committed() {
      Atomics.add(signal, COMMITS, 1);
      Atomics.notify(signal, COMMITS);
    },
    // Without this gate, space freed after a full disk went to the writes that had been refused
    // (resent at once by every client) before the thread's next try a second later: the WAL grew
    // into the room that the checkpoint needed to grow the database file, and the server stayed
    // full for good. Done on a connection of its own, like the thread's (a connection that failed a
    // write may keep failing); while the disk stays full this costs a refused write a partial copy.
    beforeWrite() {
      if (!failing || stopping) return;
      const db = new Database(file, { fileMustExist: true });
      try {
        db.pragma('synchronous = FULL');
        db.pragma('wal_checkpoint(PASSIVE)');
      } finally {
        db.close();
      }
      // The thread, if it is waiting to be started again, starts within RETRY_MS as before: not
      // from here, where a thread that cannot start at all would be started again on every write.
      recovered();
    },
    async stop() {
      stopping = true;
      clearTimeout(restart);
      Atomics.store(signal, STOP, 1);
      Atomics.notify(signal, COMMITS);
      // Waited for, the thread must keep the process alive: unref'd, a thread still checkpointing a
      // large WAL left the event loop empty, and Node ended the process silently (exit code 13 under
      // a top-level await) in the middle of `close()` — the bench's silent exit (issue 27).
      thread?.ref();
      await exited;
    },
  };
}
