import type { Db } from './database.js';
import { current, driverOf, type Scope, type ScopedDriver } from './transaction.js';

/**
 * Group commit for small writes (issue 30). A request's transaction costs little work but one
 * COMMIT, and with synchronous=FULL (SQLite) or fsync on commit (PostgreSQL) that commit is the
 * whole price: 201 one-test requests/s against ~12,000 tests/s in batches. Here concurrent small
 * writes share one transaction: each runs in a SAVEPOINT of its own, so a failing one is rolled back
 * alone and gets its own error, and the group commits once, when no request is waiting any more (or
 * at the bounds below). Every member is answered only after that commit succeeded, so nothing
 * acknowledged can be lost; when it fails, every member fails and nothing of any of them is stored
 * (their Idempotency-Key records included, so retries with the same keys just do the work).
 *
 * Members run one after another on the group's connection (savepoints are a stack); what they gain
 * is the commit. The next group forms while this one commits, so no timer waits for company: a lone
 * request commits at once, as before.
 */

export interface GroupBounds {
  /** Members of one transaction at most: bounds what one failed commit takes down and the wait of the first. */
  maxMembers: number;
  /**
   * A group stops taking members this long after its first one began, so a steady stream still
   * commits often. Counted from the first member, not from BEGIN: on a loaded machine, waiting for
   * the writer or the CPU must not end a group before it has anyone in it.
   */
  maxMs: number;
  /**
   * How long a group waits for company before its first member runs, once writes have been seen to
   * overlap (a request arrived while the previous group ran): a lone writer never waits. SQLite's
   * COMMIT (its fsync) blocks the event loop, so requests in flight cannot reach the queue while a
   * group commits; without this wait, 16 writers in flight made groups of one (docs/benchmarks.md).
   * Tests set it high to put concurrent requests in one group for certain.
   */
  lingerMs: number;
  /** Linger before every group, not only once writes overlap (tests). */
  alwaysLinger: boolean;
}
const DEFAULT_BOUNDS: GroupBounds = { maxMembers: 64, maxMs: 50, lingerMs: 3, alwaysLinger: false };

interface Member {
  fn: () => Promise<unknown>;
  /** The caller knows more writes are on their way (jointWrites.ts): the group waits for them. */
  linger: boolean;
  /** Resolves once the member has the company it lingers for (jointWrites.ts): the group's wait ends then. */
  enough: Promise<void> | undefined;
  resolve: (value: unknown) => void;
  reject: (err: unknown) => void;
}

/** Thrown to the members of a group whose transaction could not be committed after a failed savepoint. */
export class GroupAbortedError extends Error {
  constructor(cause: unknown) {
    super(`the shared transaction could not be committed: ${(cause as Error)?.message ?? String(cause)}`, { cause });
  }
}

class CommitQueue {
  readonly #waiting: Member[] = [];
  #running = false;
  /** Calls that arrived while a group ran: when the last group saw any, writes overlap and the next one lingers. */
  #arrivedDuring = 0;
  #overlapping = false;

  bounds: GroupBounds = DEFAULT_BOUNDS;

  constructor(
    private readonly db: Db,
    private readonly driver: ScopedDriver,
  ) {}

  submit<T>(fn: () => Promise<T>, linger: boolean, enough: Promise<void> | undefined): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.#waiting.push({ fn, linger, enough, resolve: resolve as (v: unknown) => void, reject });
      if (this.#running) this.#arrivedDuring++;
      else void this.#drain();
    });
  }

  async #drain() {
    this.#running = true;
    try {
      while (this.#waiting.length > 0) await this.#group();
    } finally {
      this.#running = false;
    }
  }

  async #group() {
    const { inner } = this.driver;
    const { maxMembers, maxMs, lingerMs, alwaysLinger } = this.bounds;
    await this.driver.init();
    if (lingerMs > 0 && (alwaysLinger || this.#overlapping || this.#waiting.length > 1 || this.#waiting.some((m) => m.linger))) await linger(lingerMs, this.#waiting);
    // Otherwise one turn of the event loop: requests whose bytes have already arrived reach the queue
    // first. better-sqlite3 never yields to I/O (every query resolves in microtasks), so without
    // this each request ran from its socket read to its COMMIT alone, never saw another arrive, and
    // every group had one member (1,300 groups for 1,300 requests at 16 in flight; issue 30).
    else await new Promise((r) => setImmediate(r));
    this.#arrivedDuring = 0;
    let conn;
    try {
      conn = await inner.acquireConnection();
    } catch (err) {
      for (const m of this.#waiting.splice(0, maxMembers)) m.reject(err);
      return;
    }
    const committed: { member: Member; value: unknown; afterCommit: Scope['afterCommit'] }[] = [];
    const group = { broken: false };
    let taken = 0;
    let failure: unknown;
    let durable: Promise<void> | undefined;
    const { groupTransactions } = this.driver;
    try {
      groupTransactions?.begin();
      await inner.beginTransaction(conn, {});
    } catch (err) {
      groupTransactions?.end();
      await inner.releaseConnection(conn);
      for (const m of this.#waiting.splice(0, maxMembers)) m.reject(err);
      return;
    }
    const started = performance.now();
    try {
      while (this.#waiting.length > 0 && taken < maxMembers && !group.broken && performance.now() - started < maxMs) {
        const member = this.#waiting.shift()!;
        taken++;
        const scope: Scope = { driver: this.driver, conn, savepoints: [], seq: 0, done: false, afterCommit: [], group };
        try {
          // A savepoint of the group's transaction (ScopedDriver.beginTransaction inside a scope).
          const value = await current.run(scope, () => this.db.transaction().execute(() => member.fn()));
          committed.push({ member, value, afterCommit: scope.afterCommit });
        } catch (err) {
          // Its savepoint is rolled back: only this request failed, the group carries on.
          member.reject(err);
        } finally {
          scope.done = true;
        }
      }
      if (group.broken) throw new Error('a savepoint could not be rolled back');
      ({ durable } = await this.driver.commitOutermost(conn));
    } catch (err) {
      failure = err;
      // PostgreSQL has ended a transaction whose COMMIT failed; SQLite keeps it open. Either way nothing is kept.
      await inner.rollbackTransaction(conn).catch(() => {});
    } finally {
      groupTransactions?.end();
      await inner.releaseConnection(conn);
    }
    this.#overlapping = this.#arrivedDuring > 0;
    if (failure !== undefined) {
      const err = group.broken ? new GroupAbortedError(failure) : failure;
      for (const c of committed) c.member.reject(err);
      return;
    }
    // After the commit and with the connection back (SQLite has one writer): once the commit is
    // durable, each member's after-commit work (webhook kicks, CI activity), then its answer. Not
    // awaited: the next group runs while the disk syncs this one.
    for (const c of committed) void settle(c.member, c.value, c.afterCommit, durable);
  }
}

/** The group's wait for company: `ms`, or until a member says it has enough. */
async function linger(ms: number, waiting: Member[]) {
  let timer: NodeJS.Timeout | undefined;
  const enough = waiting.flatMap((m) => (m.enough ? [m.enough] : []));
  await Promise.race([new Promise((r) => (timer = setTimeout(r, ms))), ...enough]);
  clearTimeout(timer);
}

async function settle(member: Member, value: unknown, afterCommit: Scope['afterCommit'], durable: Promise<void> | undefined) {
  try {
    await durable;
    for (const cb of afterCommit) await cb();
    member.resolve(value);
  } catch (err) {
    member.reject(err);
  }
}

const queues = new WeakMap<Db, CommitQueue>();

function queueOf(db: Db): CommitQueue {
  let queue = queues.get(db);
  if (!queue) queues.set(db, (queue = new CommitQueue(db, driverOf(db))));
  return queue;
}

/** Changes the bounds of `db`'s groups (tests). */
export function setGroupBounds(db: Db, bounds: Partial<GroupBounds>): void {
  const queue = queueOf(db);
  queue.bounds = { ...queue.bounds, ...bounds };
}

/**
 * Runs `fn` (a request's whole write, Idempotency-Key record included) all-or-nothing in a savepoint
 * of a transaction shared with other concurrent calls, and resolves once that transaction has
 * committed. Every query through `db` below `fn` joins it, as with `inTransaction`. Inside an open
 * transaction it is just a savepoint of that one.
 */
export function groupCommit<T>(db: Db, fn: () => Promise<T>, opts: { linger?: boolean; enough?: Promise<void> } = {}): Promise<T> {
  const driver = driverOf(db);
  if (current.getStore()?.driver === driver && !current.getStore()!.done) return db.transaction().execute(() => fn());
  return queueOf(db).submit(fn, opts.linger ?? false, opts.enough);
}
