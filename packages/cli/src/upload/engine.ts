import { ApiError, type TestReportClient } from '@testreport/client';
import type { RunCreate, TestCreate } from '@testreport/contract';
import pLimit from 'p-limit';
import type { ReportInputs } from '../report/inputs.js';
import { readReport } from '../report/read.js';
import type { SuiteRef, TestRecord } from '../report/types.js';
import { planAttachment } from './attachments.js';
import { sha256 } from './hash.js';
import type { ScanResult } from './scan.js';
import { Tally } from './tally.js';

export const BATCH_SIZE = 500;
/** Keeps one batch request far below the server's 64 MiB JSON limit even with 1 MiB outputs. */
const BATCH_BYTES = 16 * 1024 * 1024;

export interface UploadProgress {
  testsSent: number;
  testsTotal: number;
  bytesUploaded: number;
  bytesTotal: number;
}

export interface UploadPlan {
  client: TestReportClient;
  inputs: ReportInputs;
  scan: ScanResult;
  /** sha256 over the report's files: the root of every idempotency key. */
  reportHash: string;
  run: RunCreate;
  /** Batches (with their attachments) in flight at once. */
  concurrency: number;
  onProgress?: (p: UploadProgress) => void;
}

export interface UploadOutcome {
  runId: string;
  projectId: string;
  status: 'passed' | 'failed';
  counts: ReturnType<Tally['counts']>;
  duration: number;
  suites: number;
  artifacts: { uploaded: number; bytes: number; notUploaded: Array<{ reason: string; detail: string }> };
}

const suiteKey = (path: SuiteRef[]) => JSON.stringify(path.map((s) => [s.title, s.filePath ?? null]));

/**
 * The second pass: creates the run, upserts suites as they appear, sends tests in batches of 500 with
 * bounded concurrency (reading pauses while `concurrency` batches are in flight, so memory stays
 * bounded), uploads each test's attachments, then PATCHes counts and status. Every POST carries a key
 * derived from the report, so running it again for the same report stores nothing twice.
 */
export async function uploadReport(plan: UploadPlan): Promise<UploadOutcome> {
  const { client, scan, run } = plan;
  const projectId = run.projectId;
  const created = await client.runs.create(run, { idempotencyKey: `run-${sha256(`${plan.reportHash}\n${JSON.stringify(run)}`)}` });
  const runId = created.id;
  const keyRoot = `${runId}-${plan.reportHash.slice(0, 32)}`;

  const progress: UploadProgress = { testsSent: 0, testsTotal: scan.tally.totalTests, bytesUploaded: 0, bytesTotal: scan.attachments.bytes };
  const report = () => plan.onProgress?.({ ...progress });
  report();

  const suiteIds = new Map<string, string>();
  async function ensureSuites(path: SuiteRef[]): Promise<void> {
    let parent: string | null = null;
    for (let i = 1; i <= path.length; i++) {
      const key = suiteKey(path.slice(0, i));
      let id = suiteIds.get(key);
      if (!id) {
        const s = path[i - 1];
        const suite = await client.testSuites.upsert(
          { runId, projectId, title: s.title, ...(s.filePath ? { filePath: s.filePath } : {}), parentSuiteId: parent },
          { idempotencyKey: `suite-${keyRoot}-${sha256(key).slice(0, 32)}` },
        );
        id = suite.id;
        suiteIds.set(key, id);
      }
      parent = id;
    }
  }

  const artifacts: UploadOutcome['artifacts'] = { uploaded: 0, bytes: 0, notUploaded: [] };
  const artifactLimit = pLimit(4);
  async function sendAttachments(records: Array<{ rec: TestRecord; index: number }>, testIds: string[]): Promise<void> {
    const jobs: Promise<void>[] = [];
    records.forEach(({ rec, index }, i) => {
      rec.attachments.forEach((a, ai) => {
        jobs.push(
          artifactLimit(async () => {
            const p = await planAttachment(a);
            if (!p.ok) {
              artifacts.notUploaded.push({ reason: p.reason, detail: p.detail });
              return;
            }
            try {
              await client.artifacts.upload(
                { file: a.path, type: p.type, runId, projectId, testId: testIds[i] },
                { idempotencyKey: `artifact-${keyRoot}-${index}-${ai}` },
              );
              artifacts.uploaded++;
              artifacts.bytes += p.size;
              progress.bytesUploaded += p.size;
              report();
            } catch (err) {
              // The server refusing one file (format, size) leaves the results intact: list it and go on.
              if (err instanceof ApiError && err.status >= 400 && err.status < 500 && err.status !== 401 && err.status !== 429) {
                artifacts.notUploaded.push({ reason: err.code, detail: `${a.path}: ${err.message}` });
              } else throw err;
            }
          }),
        );
      });
    });
    await Promise.all(jobs);
  }

  const tally = new Tally();
  let duration: number | undefined;
  const inflight = new Set<Promise<void>>();
  let failure: { error: unknown } | undefined;
  let batch: Array<{ rec: TestRecord; index: number }> = [];
  let batchBytes = 0;
  let batchIndex = 0;
  let recordIndex = 0;

  const flush = () => {
    if (batch.length === 0) return;
    const items = batch;
    const index = batchIndex++;
    batch = [];
    batchBytes = 0;
    const task = (async () => {
      const tests: TestCreate[] = items.map(({ rec }) => ({ ...rec.test, runId, projectId }));
      const res = await client.tests.createBatch(tests, { idempotencyKey: `tests-${keyRoot}-${index}` });
      progress.testsSent += items.length;
      report();
      await sendAttachments(items, res.data.map((t) => t.id));
    })().catch((error) => {
      failure ??= { error };
    });
    const tracked = task.finally(() => inflight.delete(tracked));
    inflight.add(tracked);
  };

  for await (const r of readReport(plan.inputs, { multiProject: scan.projects.size > 1 })) {
    if (failure) break;
    if (r.kind === 'meta') {
      if (r.duration) duration = r.duration;
      continue;
    }
    tally.add(r.test);
    await ensureSuites(r.suites);
    const size = JSON.stringify(r.test).length;
    if (batch.length >= BATCH_SIZE || (batch.length > 0 && batchBytes + size > BATCH_BYTES)) flush();
    batch.push({ rec: r, index: recordIndex++ });
    batchBytes += size;
    while (inflight.size >= plan.concurrency) await Promise.race(inflight);
  }
  if (!failure) flush();
  await Promise.all(inflight);
  if (failure) throw failure.error;

  const finalDuration = Math.round(duration ?? tally.durationSum);
  await client.runs.update(runId, { status: tally.status, ...tally.counts(), duration: finalDuration });
  return { runId, projectId, status: tally.status, counts: tally.counts(), duration: finalDuration, suites: suiteIds.size, artifacts };
}
