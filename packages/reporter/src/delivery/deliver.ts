import { LIMITS } from '@testreport/contract/core';
import type { Delivery } from './engine.js';
import type { ArtifactJob, FinishRecord, RecordKind, RunRecord, SuiteRecord, TestBody } from './records.js';

/** What a source hands the driver: records in protocol order (run, suites before their tests, finish last). */
export type Outgoing =
  | RunRecord
  | SuiteRecord
  | FinishRecord
  /** A batch with the artifacts of its tests (`test` indexes `tests`), sent once the batch is stored. */
  | { t: 'batch'; cid: string; tests: { cid: string; body: TestBody }[]; artifacts?: { test: number; job: ArtifactJob }[] }
  /** An artifact after all batches (a spool's), attached to the test with client id `testCid`. */
  | { t: 'artifact'; testCid: string; job: ArtifactJob };

export interface Counts {
  run: number;
  suites: number;
  tests: number;
  artifacts: number;
  finish: number;
}

export interface DeliveryReport {
  runId: string;
  /** Records sent by this delivery. */
  sent: Counts;
  /** Records an earlier attempt already delivered (skipped). */
  skipped: Counts;
  /** Artifacts whose file was gone or that the server refused; the rest of the run is stored. */
  refused: { fileName: string; reason: string }[];
  /** Bytes of artifacts uploaded. */
  bytes: number;
}

export interface DeliverOptions {
  /** Remember test ids by client id, for `artifact` records that come after all batches. */
  keepTestIds?: boolean;
  onProgress?(report: DeliveryReport, kind: RecordKind): void;
}

const zero = (): Counts => ({ run: 0, suites: 0, tests: 0, artifacts: 0, finish: 0 });

/**
 * Sends a stream of records through a Delivery: the run first, suites in batches of 500, test batches with bounded
 * concurrency (the stream is not read further while the pool is full, so memory stays bounded),
 * each batch's artifacts once its test ids are known, and the finish after everything else. After
 * the first failure no new record starts; the ones in flight end and that failure is thrown.
 */
export async function deliver(records: AsyncIterable<Outgoing>, d: Delivery, opts: DeliverOptions = {}): Promise<DeliveryReport> {
  const report: DeliveryReport = { runId: '', sent: zero(), skipped: zero(), refused: [], bytes: 0 };
  const testIds = new Map<string, string>();
  let failure: { error: unknown } | undefined;
  const fail = (error: unknown) => {
    failure ??= { error };
  };
  const count = (sent: boolean, what: keyof Counts, kind: RecordKind, n = 1) => {
    (sent ? report.sent : report.skipped)[what] += n;
    report.runId = d.runId ?? '';
    opts.onProgress?.(report, kind);
  };
  const upload = (job: ArtifactJob, testId: string | undefined) =>
    d.artifactPool.run(async () => {
      if (failure) return;
      const o = await d.artifact(job, testId);
      if (!o.ok) report.refused.push({ fileName: o.fileName, reason: o.reason });
      else {
        report.bytes += o.bytes;
        count(!o.skipped, 'artifacts', 'artifact');
      }
    });
  // Suites are gathered into batches and sent one request after another (a batch may name parents
  // of an earlier one), beside the test batches: no test refers to a suite, so reading goes on.
  let suites: Omit<SuiteRecord, 't'>[] = [];
  let suitesSent: Promise<void> = Promise.resolve();
  const sendSuites = () => {
    if (!suites.length) return;
    const list = suites;
    suites = [];
    suitesSent = suitesSent
      .then(async () => {
        if (failure) return;
        const { sent, skipped } = await d.suites(list);
        for (let i = 0; i < sent; i++) count(true, 'suites', 'suite');
        for (let i = 0; i < skipped; i++) count(false, 'suites', 'suite');
      })
      .catch(fail);
  };
  const settle = async () => {
    sendSuites();
    await suitesSent;
    await d.pool.drain();
    await d.artifactPool.drain();
  };

  try {
    for await (const r of records) {
      if (failure) break;
      if (r.t === 'run') count(await d.createRun(r.cid, r.body), 'run', 'run');
      else if (r.t === 'suite') {
        suites.push(r);
        if (suites.length >= LIMITS.batchMax) sendSuites();
      }
      else if (r.t === 'batch') {
        while (d.pool.pending >= d.concurrency) await d.pool.settled();
        d.pool
          .run(async () => {
            if (failure) return;
            const { ids, sent } = await d.batch(r);
            if (opts.keepTestIds) r.tests.forEach((t, i) => ids[i] && testIds.set(t.cid, ids[i]));
            count(sent, 'tests', 'batch', r.tests.length);
            await Promise.all((r.artifacts ?? []).map(({ test, job }) => upload(job, ids[test])));
          })
          .catch(fail);
      } else if (r.t === 'artifact') {
        // Its test's batch came earlier in the stream: once batches are done, its id is known.
        await d.pool.drain();
        while (d.artifactPool.pending >= d.concurrency * 4) await d.artifactPool.settled();
        upload(r.job, testIds.get(r.testCid)).catch(fail);
      } else {
        await settle();
        if (failure) break;
        count(await d.finish(r.cid, r.body), 'finish', 'finish');
      }
    }
  } catch (e) {
    fail(e);
  }
  await settle();
  if (failure) throw failure.error;
  report.runId = d.runId ?? '';
  return report;
}
