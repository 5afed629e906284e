import type { Db } from './database.js';
import { groupCommit } from './groupCommit.js';
import { current } from './transaction.js';
import { sendHeldBack } from './later.js';

/**
 * Joint writes (issue 30, goal 1): concurrent small writes of one kind (`POST /tests`, one result
 * each) run together as ONE member of a group commit, and what they have in common runs once for
 * all of them (`together`): the storing of their results becomes one batch, as `POST /tests/batch`
 * stores, instead of a dozen statements and their JavaScript per request. Group commit alone shared
 * only the COMMIT; a one-test request still cost 11–13 × a batched test's CPU (docs/benchmarks.md).
 *
 * Each call still gets its own answer: the calls' functions run concurrently inside the one
 * savepoint (each with its own Idempotency-Key record), park at `together`, and once every call has
 * parked or finished, the shared work runs and each gets its part back. If any call fails, the joint
 * savepoint is rolled back and every call runs again alone, as a member of its own (its own
 * savepoint, as before), so a bad request gets its own error and the others are stored. A failed
 * COMMIT fails every call, as for any group.
 */

interface Call {
  fn: () => Promise<unknown>;
  /** Calls with the same key never run jointly (one Idempotency-Key): the second runs after, alone. */
  key: string | undefined;
  resolve: (value: unknown) => void;
  reject: (err: unknown) => void;
}

interface Parked {
  item: unknown;
  resolve: (value: unknown) => void;
  reject: (err: unknown) => void;
}

/** The joint member that the current call chain runs in (on its savepoint's scope). */
export interface Joint {
  size: number;
  settled: number;
  parked: Map<(items: any[]) => Promise<unknown[]>, Parked[]>;
}

/** Bounds what one failed call takes back to the one-by-one path, and the batch one statement carries. */
const MAX_JOINT = 64;
/** How long the most calls seen in flight at once is remembered (see `#company`). */
const PEAK_WINDOW_MS = 500;

class JointQueue {
  readonly #waiting: Call[] = [];
  #scheduled = false;
  /**
   * Calls in the last joint. More than one: several clients write at once, so the next joint waits
   * for them (the group's linger, 3 ms) instead of taking only the requests read in one turn of the
   * event loop. SQLite's statements never yield to I/O, so no request is read while a group runs,
   * and group commit's own sign of overlap never showed: joints of one to four calls at 16 in
   * flight, 940 µs of server CPU per request; with the wait, 690–720 µs (docs/benchmarks.md).
   */
  #lastSize = 0;
  /**
   * The next joint stops waiting once it holds this many calls: half the most calls seen in flight
   * at once (submitted, not yet answered) in this window or the last. Waiting for all of them made
   * the client and the server take turns: the whole joint was answered at once, the server idled
   * while the client read 16 answers and sent 16 requests, and the client idled while the server
   * stored them. With half, one half is stored while the client works on the other's answers:
   * 12–20% more one-test requests/s at 16 in flight on SQLite (docs/benchmarks.md).
   */
  #company = Infinity;
  #enough: (() => void) | undefined;
  #open = 0;
  #peak = 0;
  #lastPeak = 0;
  #windowStart = 0;

  constructor(private readonly db: Db) {}

  submit<T>(fn: () => Promise<T>, key: string | undefined): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.#open++;
      const done = () => this.#open--;
      this.#waiting.push({ fn, key, resolve: (v) => (done(), resolve(v as T)), reject: (e) => (done(), reject(e)) });
      this.#notePeak();
      if (this.#waiting.length >= this.#company) this.#enough?.();
      if (this.#scheduled) return;
      this.#scheduled = true;
      void this.#member();
    });
  }

  /** One member of the next group: it takes every call that arrived until the group runs it. */
  async #member() {
    let calls: Call[] = [];
    let ownFailure = false;
    let values: unknown[];
    const enough = new Promise<void>((r) => (this.#enough = r));
    this.#company = Math.max(2, Math.ceil(Math.max(this.#peak, this.#lastPeak) / 2));
    try {
      values = await groupCommit(
        this.db,
        async () => {
          calls = this.#take();
          this.#lastSize = calls.length;
          try {
            const values = await runJointly(calls);
            // Inside: a held-back write's failure is then the calls' own, not the group's COMMIT's
            // (a lone call's failure is its own either way).
            if (calls.length > 1) await sendHeldBack(this.db);
            return values;
          } catch (err) {
            ownFailure = true;
            throw err;
          }
        },
        { linger: this.#lastSize > 1, enough },
      );
    } catch (err) {
      if (calls.length === 0) {
        // The group never ran this member (no connection, BEGIN failed): the calls still waiting fail.
        calls = this.#take();
        for (const c of calls) c.reject(err);
        return;
      }
      if (!ownFailure || calls.length === 1) {
        // The group's COMMIT failed (every member fails), or a call alone failed: its own error.
        for (const c of calls) c.reject(err);
        return;
      }
      // One call failed and took the others' savepoint with it: each again, alone.
      for (const c of calls) current.exit(() => groupCommit(this.db, c.fn)).then(c.resolve, c.reject);
      return;
    }
    calls.forEach((c, i) => c.resolve(values[i]));
  }

  /** Counts the calls in flight into the window's most; a window ends PEAK_WINDOW_MS after it began. */
  #notePeak() {
    const now = performance.now();
    if (now - this.#windowStart > PEAK_WINDOW_MS) {
      // After a quiet spell, what was seen before it says nothing about the writers of now.
      this.#lastPeak = now - this.#windowStart > 2 * PEAK_WINDOW_MS ? 0 : this.#peak;
      this.#peak = 0;
      this.#windowStart = now;
    }
    if (this.#open > this.#peak) this.#peak = this.#open;
  }

  #take(): Call[] {
    this.#scheduled = false;
    const taken: Call[] = [];
    const keys = new Set<string>();
    const later: Call[] = [];
    for (const c of this.#waiting.splice(0)) {
      if (taken.length >= MAX_JOINT || (c.key !== undefined && keys.has(c.key))) later.push(c);
      else {
        taken.push(c);
        if (c.key !== undefined) keys.add(c.key);
      }
    }
    // A repeat of a key in flight (a client's retry racing its first try) waits for the next member,
    // where the first try's record is there to replay: two tries of one key in one transaction would
    // both find the key unanswered.
    if (later.length > 0) {
      this.#waiting.push(...later);
      this.#scheduled = true;
      // Not from inside this member's transaction, which it would otherwise join as a savepoint.
      current.exit(() => void this.#member());
    }
    return taken;
  }
}

/** Runs the calls concurrently on the member's savepoint; any failure fails them all. */
async function runJointly(calls: Call[]): Promise<unknown[]> {
  if (calls.length === 1) return [await calls[0]!.fn()];
  const scope = current.getStore()!;
  const joint: Joint = { size: calls.length, settled: 0, parked: new Map() };
  scope.joint = joint;
  try {
    const outcomes = await Promise.allSettled(
      calls.map((c) =>
        c.fn().finally(() => {
          joint.settled++;
          flushIfAllWait(joint);
        }),
      ),
    );
    const failed = outcomes.find((o) => o.status === 'rejected');
    if (failed) throw failed.reason;
    return outcomes.map((o) => (o as PromiseFulfilledResult<unknown>).value);
  } finally {
    scope.joint = undefined;
  }
}

/** Once every call of the joint has parked or finished, the parked ones' shared work runs. */
function flushIfAllWait(joint: Joint) {
  let parked = 0;
  for (const list of joint.parked.values()) parked += list.length;
  if (parked === 0 || parked + joint.settled < joint.size) return;
  const ready = [...joint.parked];
  joint.parked.clear();
  for (const [runMany, list] of ready) {
    runMany(list.map((p) => p.item)).then(
      (outs) => list.forEach((p, i) => p.resolve(outs[i])),
      (err) => list.forEach((p) => p.reject(err)),
    );
  }
}

const queues = new WeakMap<Db, JointQueue>();

/**
 * Runs `fn` (a request's whole write, Idempotency-Key record included) as part of a joint member of
 * a group commit (see above) and resolves once that has committed. `key`: the request's
 * Idempotency-Key with its scope, if any.
 */
export function jointCommit<T>(db: Db, fn: () => Promise<T>, key?: string): Promise<T> {
  // Inside a transaction already: a savepoint of that one, as groupCommit does.
  const scope = current.getStore();
  if (scope && !scope.done) return groupCommit(db, fn);
  let queue = queues.get(db);
  if (!queue) queues.set(db, (queue = new JointQueue(db)));
  return queue.submit(fn, key);
}

/**
 * The part of a call's work that the calls of a joint member share: `runMany` runs once for the items
 * of every call that reached here (the same `runMany` function), and returns one output per item in
 * their order. Outside a joint member (a lone call, a transaction of its own), it runs for this item.
 */
export async function together<I, O>(item: I, runMany: (items: I[]) => Promise<O[]>): Promise<O> {
  const joint = current.getStore()?.joint;
  if (!joint) return (await runMany([item]))[0]!;
  return new Promise<O>((resolve, reject) => {
    let list = joint.parked.get(runMany);
    if (!list) joint.parked.set(runMany, (list = []));
    list.push({ item, resolve: resolve as (v: unknown) => void, reject });
    flushIfAllWait(joint);
  });
}
