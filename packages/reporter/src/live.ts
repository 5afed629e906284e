import { randomUUID } from 'node:crypto';
import { dirname, resolve } from 'node:path';
import { ApiError, InsecureTransportError, KeyValidationError, type TestReportClient } from '@testreport/client/core';
import type { RunUpdate } from '@testreport/contract';
import type { PendingArtifact } from './attachments.js';
import { Delivery } from './delivery/engine.js';
import { idempotencyKey, type RunBody, type SuiteRecord, type TestBody } from './delivery/records.js';
import { replaySpool, type SpoolWriter } from './spool.js';

// A batch goes when it is full or a second after its first test. Each request costs the server a
// few commits (its idempotency record) on top of the tests: on a suite of 2,000 trivial tests,
// batches of 50 were 40 requests whose server CPU competed with the test workers.
const BATCH_SIZE = 500;
const FLUSH_MS = 1_000;
// The last batch is the one onEnd waits for (the server stores it before the finish): when only
// this many of the run's tests are left, what is queued goes at once, so the last batch is small,
// and it goes with the run's last test, while Playwright stops its workers, not at onEnd.
const LAST_BATCH = 50;
const SEND_CONCURRENCY = 2;
// Beyond this many tests waiting for a slow server, new batches stay only in the spool (bounded memory).
const MAX_PENDING_TESTS = 5_000;

type Mode = 'online' | 'offline' | 'disabled';
/** A test waiting for its batch, as JSON: serialised once, for the spool and for the request. */
type Pending = { cid: string; json: string; artifacts: PendingArtifact[] };

export interface LiveHooks {
  say(line: string): void;
  /** Reporting cannot go on (bad key, wrong project): say why and stop, leaving no spool. */
  disable(reason: string): void;
  /** The server knows who we are: load what the run needs from it (the quarantine list). */
  connected(client: TestReportClient, projectId: string): Promise<void>;
}

export interface LiveOutcome {
  delivered: boolean;
  runId: string | undefined;
  /** Artifacts the server refused during delivery (file names). */
  refused: string[];
  /** Batches the server refused as a payload (400/413), which a replay would not fix. */
  dropped: string[];
}

/**
 * Delivery while Playwright runs: tests are batched as they end and sent in the background through
 * the shared engine, every record journaled to the spool first. When the server stops answering,
 * delivery goes offline and the spool is what remains; nothing here throws into Playwright.
 */
export class LiveDelivery {
  mode: Mode = 'online';
  private readonly delivery: Delivery;
  /** The run is created (or delivery went offline/disabled trying). */
  private ready: Promise<void> = Promise.resolve();
  /** The suite tree is sent; tests do not wait for it, the finish does. */
  private suitesSent: Promise<void> = Promise.resolve();
  /** Tests handed to the pool and not yet answered. */
  private pendingTests = 0;
  private queue: Pending[] = [];
  private timer: NodeJS.Timeout | undefined;
  private readonly unsent = new Map<string, PendingArtifact>();
  /** Artifacts already in the spool's folder. */
  private readonly kept = new Set<string>();
  private undelivered = false;
  /** Batches left in the spool only, sent by a replay of the spool at the end. */
  private deferred = false;
  private readonly refused: string[] = [];
  private readonly dropped: string[] = [];
  /** Tests handed to add() so far, and how many the run has (Playwright's count at onBegin). */
  private added = 0;
  private expected = 0;

  constructor(
    private readonly client: TestReportClient,
    private readonly spool: SpoolWriter,
    private readonly url: string,
    private readonly hooks: LiveHooks,
    projectId: string | undefined,
  ) {
    this.delivery = new Delivery({
      client,
      projectId,
      key: (kind, cid) => idempotencyKey(kind, cid),
      onAck: (ack) => spool.write({ t: 'ack', ...ack }),
      concurrency: SEND_CONCURRENCY,
    });
  }

  /** Spec rules 1–4 are checked (locally, then GET /me) before the run is created. */
  start(runCid: string, body: RunBody, suites: SuiteRecord[], configuredProject: string | undefined, expectedTests = 0): void {
    this.expected = expectedTests;
    this.ready = this.connect(runCid, body, suites, configuredProject);
  }

  private async connect(runCid: string, body: RunBody, suites: SuiteRecord[], configuredProject: string | undefined): Promise<void> {
    try {
      const me = await this.client.verify(configuredProject ? { projectId: configuredProject } : {});
      const projectId = configuredProject ?? (me.type === 'apiKey' ? me.apiKey.projectId : undefined);
      if (!projectId) return this.disable('reporting disabled: no project (set projectId or use a project API key)');
      this.delivery.projectId = projectId;
      if (!configuredProject) this.spool.write({ t: 'project', id: projectId });
      await this.hooks.connected(this.client, projectId);
    } catch (e) {
      if (refusedForGood(e)) return this.disable(`reporting disabled: ${(e as Error).message}`);
      return this.goOffline(e);
    }
    try {
      await this.delivery.createRun(runCid, body);
    } catch (e) {
      return this.goOffline(e);
    }
    // One request (POST /test-suites/batch) for up to 500 suites, beside the first test batches.
    this.suitesSent = this.delivery.suites(suites, () => this.mode === 'online').then(
      () => {},
      (e) => this.goOffline(e),
    );
  }

  private disable(reason: string): void {
    this.mode = 'disabled';
    this.queue = [];
    this.hooks.disable(reason);
  }

  private goOffline(e: unknown): void {
    if (this.mode !== 'online') return;
    this.mode = 'offline';
    this.undelivered = true;
    this.hooks.say(`cannot reach ${this.url} (${(e as Error)?.message ?? String(e)}); results go to ${this.spool.file}`);
  }

  add(cid: string, body: TestBody, artifacts: PendingArtifact[]): void {
    this.queue.push({ cid, json: JSON.stringify(body), artifacts });
    this.added++;
    if (this.queue.length >= BATCH_SIZE || this.added === this.expected - LAST_BATCH || this.added === this.expected) this.flush();
    else if (!this.timer) {
      this.timer = setTimeout(() => this.flush(), FLUSH_MS);
      this.timer.unref();
    }
  }

  private flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (!this.queue.length || this.mode === 'disabled') return;
    const tests = this.queue;
    this.queue = [];
    const batch = { cid: randomUUID(), tests };
    this.spool.writeBatch(batch.cid, tests);
    for (const t of tests)
      for (const a of t.artifacts) {
        // A body reaches the spool only if it is not delivered (see keepUnsent): it is in memory already.
        if (typeof a.job.source === 'string') this.spool.write({ t: 'artifact', cid: a.job.cid, testCid: a.testCid, type: a.job.type, fileName: a.job.fileName, path: a.job.source, ...(a.job.retry !== undefined ? { retry: a.job.retry } : {}), ...(a.job.snapshotPath ? { snapshotPath: a.job.snapshotPath } : {}) });
        this.unsent.set(a.job.cid, a);
      }
    if (this.pendingTests >= MAX_PENDING_TESTS) {
      this.deferred = true;
      return;
    }
    this.pendingTests += tests.length;
    this.delivery.pool
      .run(() => this.sendBatch(batch.cid, tests))
      .catch(() => {})
      .finally(() => (this.pendingTests -= tests.length));
  }

  private async sendBatch(cid: string, tests: Pending[]): Promise<void> {
    await this.ready;
    if (this.mode !== 'online' || !this.delivery.runId) {
      if (this.mode === 'offline') this.undelivered = true;
      return;
    }
    let ids: string[];
    try {
      ids = (await this.delivery.batch({ cid, tests })).ids;
    } catch (e) {
      if (e instanceof ApiError && (e.status === 400 || e.status === 413)) {
        // The server refuses this payload; replaying it would be refused again.
        this.dropped.push(`${tests.length} tests (${(e as Error).message})`);
        for (const t of tests) for (const a of t.artifacts) this.unsent.delete(a.job.cid);
        return;
      }
      return this.goOffline(e);
    }
    tests.forEach((t, i) => {
      for (const a of t.artifacts) this.delivery.pool.run(() => this.sendArtifact(a, ids[i])).catch(() => {});
    });
  }

  private async sendArtifact(a: PendingArtifact, testId: string | undefined): Promise<void> {
    if (this.mode !== 'online') return;
    try {
      const o = await this.delivery.artifact(a.job, testId);
      if (!o.ok) this.refused.push(o.fileName);
      this.unsent.delete(a.job.cid);
    } catch (e) {
      this.goOffline(e);
    }
  }

  /** Sends what is left and the finish; afterwards the spool is either no longer needed or complete. */
  async end(finishOf: () => RunUpdate, runCid: string): Promise<LiveOutcome> {
    this.flush();
    await this.ready;
    await this.suitesSent;
    await this.delivery.pool.drain();
    if (this.mode === 'disabled') return { delivered: false, runId: undefined, refused: [], dropped: [] };
    const finish = finishOf();
    const finishCid = `${runCid}-finish`;
    this.spool.write({ t: 'finish', cid: finishCid, body: finish });
    if (this.mode === 'online' && this.delivery.runId && this.deferred) {
      // The spool holds what memory did not; replaying it sends exactly the unacknowledged rest and the finish.
      this.keepUnsent(true);
      try {
        const replay = await replaySpool(this.spool.file, this.client);
        this.unsent.clear();
        this.refused.push(...replay.failedArtifacts.map((a) => a.fileName));
      } catch (e) {
        this.goOffline(e);
      }
    } else if (this.mode === 'online' && this.delivery.runId) {
      try {
        await this.delivery.finish(finishCid, finish);
      } catch (e) {
        this.goOffline(e);
      }
    }
    const delivered = this.mode === 'online' && !this.undelivered;
    if (!delivered) this.keepUnsent(false);
    return { delivered, runId: this.delivery.runId, refused: this.refused, dropped: this.dropped };
  }

  /**
   * Puts undelivered artifacts into the spool's folder and points records at them: bodies always
   * (they exist only in memory), files too when the spool is kept (Playwright clears its output
   * folder on the next run).
   */
  private keepUnsent(bodiesOnly: boolean): void {
    for (const a of this.unsent.values()) {
      if ((bodiesOnly && typeof a.job.source === 'string') || this.kept.has(a.job.cid)) continue;
      const kept = this.spool.keepFile(a.job.cid, a.job.fileName, a.job.source);
      if (!kept) continue;
      this.kept.add(a.job.cid);
      this.spool.write({ t: 'artifact', cid: a.job.cid, testCid: a.testCid, type: a.job.type, fileName: a.job.fileName, path: kept, ...(a.job.retry !== undefined ? { retry: a.job.retry } : {}), ...(a.job.snapshotPath ? { snapshotPath: a.job.snapshotPath } : {}) });
      // The body is on disk now; Playwright's copy is the only one left in memory.
      a.job.source = resolve(dirname(this.spool.file), kept);
    }
  }
}

/** A key or transport refused locally, or the server saying no to who we are: a later replay would not help. */
function refusedForGood(e: unknown): boolean {
  return e instanceof KeyValidationError || e instanceof InsecureTransportError || (e instanceof ApiError && e.status < 500 && e.status !== 429);
}
