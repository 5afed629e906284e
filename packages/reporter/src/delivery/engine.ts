import { stat } from 'node:fs/promises';
import { ApiError, taskPool, type TaskPool, type TestReportClient } from '@testreport/client';
import type { RunUpdate } from '@testreport/contract';
import type { AckRecord, ArtifactJob, BatchRecord, RecordKind, RunBody, SuiteRecord } from './records.js';

/** Suites of one level of the tree sent at once (a level's parents must exist before its children). */
const SUITE_CONCURRENCY = 4;

export type Ack = Omit<AckRecord, 't'>;

export interface DeliveryOptions {
  client: TestReportClient;
  /** May be learnt later (the live reporter asks GET /me), but before the run is created. */
  projectId: string | undefined;
  /** The idempotency key of a record; `runId` is known for everything after the run. */
  key(kind: RecordKind, cid: string, runId: string | undefined): string;
  /** Records the server confirmed in an earlier attempt (a spool's acks): not sent again. */
  acked?: Map<string, Ack>;
  /** Each new confirmation, so it can be journaled (the spool appends it). */
  onAck?(ack: Ack): void;
  /** Test batches (with their artifacts) in flight at once. */
  concurrency: number;
}

export type ArtifactOutcome =
  | { ok: true; skipped: boolean; bytes: number }
  | { ok: false; fileName: string; reason: string };

/**
 * The server refuses this one record (bad format, too large, gone): sending it again would be refused
 * again, so it is listed and delivery goes on. Authentication, permission and rate limits are not.
 */
export function isRefusal(e: unknown): boolean {
  return e instanceof ApiError && e.status >= 400 && e.status < 500 && ![401, 403, 429].includes(e.status);
}

/**
 * One delivery of one run: the protocol (which call, which key, what to skip) in one place, used by
 * the live reporter, the spool replay and `reporter upload`. It sends single records; `deliver()`
 * drives it over a stream of records, the live reporter drives it as tests end.
 */
export class Delivery {
  runId: string | undefined;
  projectId: string | undefined;
  readonly pool: TaskPool;
  /** Artifacts of a batch go up beside other batches, bounded on their own. */
  readonly artifactPool: TaskPool;
  private readonly acks: Map<string, Ack>;

  constructor(private readonly o: DeliveryOptions) {
    this.acks = o.acked ?? new Map();
    this.projectId = o.projectId;
    this.pool = taskPool(o.concurrency);
    this.artifactPool = taskPool(Math.max(2, o.concurrency));
  }

  get concurrency(): number {
    return this.o.concurrency;
  }

  private ack(a: Ack): void {
    this.acks.set(a.cid, { ...this.acks.get(a.cid), ...a });
    this.o.onAck?.(a);
  }

  private key(kind: RecordKind, cid: string): { idempotencyKey: string } {
    return { idempotencyKey: this.o.key(kind, cid, this.runId) };
  }

  private get run(): { runId: string; projectId: string } {
    if (!this.runId || !this.projectId) throw new Error('the run must be created first');
    return { runId: this.runId, projectId: this.projectId };
  }

  /** Creates the run (status running); false when an earlier attempt already did. */
  async createRun(cid: string, body: RunBody): Promise<boolean> {
    const known = this.acks.get(cid)?.id;
    if (known) {
      this.runId = known;
      return false;
    }
    if (!this.projectId) throw new Error('the project must be known before the run is created');
    const run = await this.o.client.runs.create({ ...body, projectId: this.projectId, status: 'running' }, this.key('run', cid));
    this.runId = run.id;
    this.ack({ cid, id: run.id });
    return true;
  }

  /** Upserts one suite under its parent (which must have been sent); false when already sent. */
  async suite(s: Omit<SuiteRecord, 't'>): Promise<boolean> {
    if (this.acks.get(s.cid)?.id) return false;
    const parentSuiteId = s.parentCid ? (this.acks.get(s.parentCid)?.id ?? null) : null;
    const suite = await this.o.client.testSuites.upsert({ ...s.body, ...this.run, parentSuiteId }, this.key('suite', s.cid));
    this.ack({ cid: s.cid, id: suite.id });
    return true;
  }

  /** A whole tree (parents listed before children), one level at a time; returns how many were sent. */
  async suites(list: readonly Omit<SuiteRecord, 't'>[], keepGoing: () => boolean = () => true): Promise<number> {
    let sent = 0;
    let level = list.filter((s) => s.parentCid === null);
    while (level.length && keepGoing()) {
      for (let i = 0; i < level.length && keepGoing(); i += SUITE_CONCURRENCY) {
        const done = await Promise.all(level.slice(i, i + SUITE_CONCURRENCY).map((s) => this.suite(s)));
        sent += done.filter(Boolean).length;
      }
      const parents = new Set(level.map((s) => s.cid));
      level = list.filter((s) => s.parentCid !== null && parents.has(s.parentCid));
    }
    return sent;
  }

  /** Stores a batch of tests; the ids are in the batch's order. `sent` is false when already stored. */
  async batch(b: Omit<BatchRecord, 't'>): Promise<{ ids: string[]; sent: boolean }> {
    const known = this.acks.get(b.cid)?.ids;
    if (known) return { ids: known, sent: false };
    const res = await this.o.client.tests.createBatch(
      b.tests.map((t) => ({ ...t.body, ...this.run })),
      this.key('batch', b.cid),
    );
    const ids = res.data.map((d) => d.id);
    this.ack({ cid: b.cid, ids });
    return { ids, sent: true };
  }

  /**
   * Uploads one artifact of a test (or of the run). A missing file or a refusal is an outcome, not
   * an error; anything else (unreachable, 5xx, auth) throws.
   */
  async artifact(job: ArtifactJob, testId: string | undefined): Promise<ArtifactOutcome> {
    if (this.acks.get(job.cid)?.id) return { ok: true, skipped: true, bytes: 0 };
    let bytes: number;
    if (typeof job.source === 'string') {
      try {
        bytes = (await stat(job.source)).size;
      } catch {
        return { ok: false, fileName: job.fileName, reason: `file not found: ${job.source}` };
      }
    } else bytes = job.source.byteLength;
    try {
      const art = await this.o.client.artifacts.upload(
        { file: job.source, fileName: job.fileName, type: job.type, ...this.run, ...(testId ? { testId } : {}), ...(job.contentType ? { contentType: job.contentType } : {}) },
        this.key('artifact', job.cid),
      );
      this.ack({ cid: job.cid, id: art.id });
      return { ok: true, skipped: false, bytes };
    } catch (e) {
      if (isRefusal(e)) return { ok: false, fileName: job.fileName, reason: (e as Error).message };
      throw e;
    }
  }

  /** PATCHes the final status and counts; false when an earlier attempt already did. */
  async finish(cid: string, update: RunUpdate): Promise<boolean> {
    if (this.acks.has(cid)) return false;
    await this.o.client.runs.update(this.run.runId, update);
    this.ack({ cid, id: this.run.runId });
    return true;
  }
}
