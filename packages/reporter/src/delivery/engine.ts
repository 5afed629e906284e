import { createHash } from 'node:crypto';
import { stat } from 'node:fs/promises';
import { ApiError, JsonText, taskPool, type TaskPool, type TestReportClient } from '@testreport/client/core';
import type { RunUpdate } from '@testreport/contract';
import { LIMITS } from '@testreport/contract/core';
import type { AckRecord, ArtifactJob, BatchTest, RecordKind, RunBody, SuiteRecord } from './records.js';

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
  /**
   * Whether a result's keys start with the run's ids (default). Spools written before this order
   * replay with the body last, so a batch the server stored but never acknowledged is sent again
   * byte for byte: an Idempotency-Key replay compares the body's bytes.
   */
  runIdsFirst?: boolean;
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

  /**
   * Upserts suites with POST /test-suites/batch, 500 per request: the ones not sent yet, parents
   * before their children (a parent in the same request is named by its index, an earlier one by
   * its id). `keepGoing` is asked before each request.
   */
  async suites(list: readonly Omit<SuiteRecord, 't'>[], keepGoing: () => boolean = () => true): Promise<{ sent: number; skipped: number }> {
    const todo = list.filter((s) => !this.acks.get(s.cid)?.id);
    let sent = 0;
    for (let from = 0; from < todo.length && keepGoing(); from += LIMITS.batchMax) {
      const chunk = todo.slice(from, from + LIMITS.batchMax);
      const indexOf = new Map<string, number>();
      const items = chunk.map((s, i) => {
        const inBatch = s.parentCid ? indexOf.get(s.parentCid) : undefined;
        indexOf.set(s.cid, i);
        const parent = inBatch !== undefined ? { parentIndex: inBatch } : { parentSuiteId: s.parentCid ? (this.acks.get(s.parentCid)?.id ?? null) : null };
        return { ...s.body, ...this.run, ...parent };
      });
      // The key names exactly these suites, so a retry (or a replay of the same spool) repeats it.
      const digest = createHash('sha1').update(chunk.map((s) => s.cid).join('\n')).digest('hex').slice(0, 16);
      const res = await this.o.client.testSuites.createBatch(items, this.key('suite', `${chunk[0].cid}+${chunk.length}+${digest}`));
      chunk.forEach((s, i) => this.ack({ cid: s.cid, id: res.data[i].id }));
      sent += chunk.length;
    }
    return { sent, skipped: list.length - todo.length };
  }

  /** Stores a batch of tests; the ids are in the batch's order. `sent` is false when already stored. */
  async batch(b: { cid: string; tests: readonly BatchTest[] }): Promise<{ ids: string[]; sent: boolean }> {
    const known = this.acks.get(b.cid)?.ids;
    if (known) return { ids: known, sent: false };
    const json = b.tests.map((t) => ('json' in t ? t.json : JSON.stringify(t.body)));
    const res = await this.o.client.tests.createBatch(new JsonText(batchJson(this.run, json, this.o.runIdsFirst !== false)), this.key('batch', b.cid));
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
        { file: job.source, fileName: job.fileName, type: job.type, ...this.run, ...(testId ? { testId } : {}), ...(job.contentType ? { contentType: job.contentType } : {}), ...(job.retry !== undefined ? { retry: job.retry } : {}), ...(job.snapshotPath ? { snapshotPath: job.snapshotPath } : {}) },
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

/**
 * POST /tests/batch's JSON from each result's own JSON, as `JSON.stringify({ tests: results.map((body)
 * => ({ ...run, ...body, ...run })) })` writes it (a result's body has no run ids of its own), so a
 * spool replayed after a crash sends what the live reporter sent byte for byte (an Idempotency-Key
 * replay compares the bytes). The run's ids go first: the server parses a large batch element by
 * element, cutting where an element opens, and the results' steps open with `title` as the results
 * do. Spools written before that order (`runIdsFirst` false) put them last.
 */
export function batchJson(run: { runId: string; projectId: string }, tests: readonly string[], runIdsFirst: boolean): string {
  const ids = `"runId":${JSON.stringify(run.runId)},"projectId":${JSON.stringify(run.projectId)}`;
  const one = (json: string) => (json === '{}' ? `{${ids}}` : runIdsFirst ? `{${ids},${json.slice(1)}` : `${json.slice(0, -1)},${ids}}`);
  return `{"tests":[${tests.map(one).join(',')}]}`;
}
