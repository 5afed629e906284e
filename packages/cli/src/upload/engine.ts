import type { TestReportClient } from '@testreport/client';
import type { RunCreate } from '@testreport/contract';
import { shardOf } from '@testreport/reporter';
import { deliver, Delivery, type DeliveryReport, type Outgoing, type RecordKind } from '@testreport/reporter/delivery';
import type { ReportInputs } from '../report/inputs.js';
import { readReport } from '../report/read.js';
import type { SuiteRef } from '../report/types.js';
import { planAttachment } from './attachments.js';
import { sha256 } from './hash.js';
import type { ScanResult } from './scan.js';
import { Tally } from './tally.js';

export const BATCH_SIZE = 500;
/** Keeps one batch request (and the bodies of its attachments) far below the server's 64 MiB JSON limit. */
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
 * Keys derived from the report's bytes (and the run id the server gave), so uploading the same
 * report again stores nothing twice: `run-<hash of report and run>`, then `<kind>-<run>-<report>-<cid>`.
 */
function reportKeys(reportHash: string): (kind: RecordKind, cid: string, runId: string | undefined) => string {
  const prefix = { run: 'run', suite: 'suite', batch: 'tests', artifact: 'artifact', finish: 'finish' } as const;
  return (kind, cid, runId) => (kind === 'run' ? `run-${cid}` : `${prefix[kind]}-${runId}-${reportHash.slice(0, 32)}-${cid}`);
}

/** The report as records for the delivery engine; `tally` and `suites` fill in as it is read. */
interface ReadState {
  tally: Tally;
  /** Client ids of the suites met so far. */
  suites: Set<string>;
  notUploaded: UploadOutcome['artifacts']['notUploaded'];
  duration: number;
}

async function* reportRecords(plan: UploadPlan, state: ReadState): AsyncGenerator<Outgoing> {
  const { tally, suites, notUploaded } = state;
  const { run } = plan;
  const { projectId: _p, status: _s, ...body } = run;
  yield { t: 'run', cid: sha256(`${plan.reportHash}\n${JSON.stringify(run)}`), body };

  let duration: number | undefined;
  let batch: Extract<Outgoing, { t: 'batch' }> = { t: 'batch', cid: '0', tests: [], artifacts: [] };
  let batchBytes = 0;
  let batchIndex = 0;
  let recordIndex = 0;
  const cidOf = new WeakMap<SuiteRef, string>();
  const next = () => {
    const full = batch;
    batch = { t: 'batch', cid: String(++batchIndex), tests: [], artifacts: [] };
    batchBytes = 0;
    return full;
  };

  for await (const r of readReport(plan.inputs, { multiProject: plan.scan.projects.size > 1 })) {
    if (r.kind === 'meta') {
      if (r.duration) duration = r.duration;
      continue;
    }
    tally.add(r.test);
    let parentCid: string | null = null;
    for (let i = 1; i <= r.suites.length; i++) {
      // A suite's object stands for one place in the tree (the readers share it between its tests):
      // its path is hashed once, not once per test.
      let cid = cidOf.get(r.suites[i - 1]);
      if (!cid) cidOf.set(r.suites[i - 1], (cid = sha256(suiteKey(r.suites.slice(0, i))).slice(0, 32)));
      if (!suites.has(cid)) {
        suites.add(cid);
        const s = r.suites[i - 1];
        yield { t: 'suite', cid, parentCid, body: { title: s.title, ...(s.filePath ? { filePath: s.filePath } : {}) } };
      }
      parentCid = cid;
    }
    let size = JSON.stringify(r.test).length;
    for (const a of r.attachments) size += a.body?.byteLength ?? 0;
    if (batch.tests.length >= BATCH_SIZE || (batch.tests.length > 0 && batchBytes + size > BATCH_BYTES)) yield next();
    const index = recordIndex++;
    const test = batch.tests.push({ cid: String(index), body: r.test }) - 1;
    batchBytes += size;
    // Files keep the index they had among the test's files, so keys match uploads made before bodies were read.
    let fileIndex = 0;
    let bodyIndex = 0;
    for (const a of r.attachments) {
      const cid = a.path ? `${index}-${fileIndex++}` : `${index}-body-${bodyIndex++}`;
      const p = await planAttachment(a);
      if (p.ok) batch.artifacts!.push({ test, job: { cid, type: p.type, fileName: p.fileName, source: p.source, ...(a.retry !== undefined ? { retry: a.retry } : {}), ...(a.snapshotPath ? { snapshotPath: a.snapshotPath } : {}) } });
      else notUploaded.push({ reason: p.reason, detail: p.detail });
    }
  }
  if (batch.tests.length) yield next();
  state.duration = Math.round(duration ?? tally.durationSum);
  // A shard of a CI build finishes its shard; the server finishes the run when every shard did.
  yield { t: 'finish', cid: 'finish', body: { status: tally.status, ...tally.counts(), duration: state.duration, ...shardOf(run) } };
}

/**
 * The second pass: creates the run, upserts suites 500 per request (POST /test-suites/batch) beside
 * the tests, sends tests in batches of 500 with
 * bounded concurrency (reading pauses while `concurrency` batches are in flight, so memory stays
 * bounded), uploads each test's attachments, then PATCHes counts and status, all through the
 * reporter's delivery engine. Every POST carries a key derived from the report.
 */
export async function uploadReport(plan: UploadPlan): Promise<UploadOutcome> {
  const projectId = plan.run.projectId;
  const delivery = new Delivery({ client: plan.client, projectId, key: reportKeys(plan.reportHash), concurrency: plan.concurrency });
  const state: ReadState = { tally: new Tally(), suites: new Set(), notUploaded: [], duration: 0 };
  const progress = (r: DeliveryReport) =>
    plan.onProgress?.({ testsSent: r.sent.tests + r.skipped.tests, testsTotal: plan.scan.tally.totalTests, bytesUploaded: r.bytes, bytesTotal: plan.scan.attachments.bytes });
  const report = await deliver(reportRecords(plan, state), delivery, { onProgress: progress });
  for (const f of report.refused) state.notUploaded.push({ reason: 'refused', detail: `${f.fileName}: ${f.reason}` });
  return {
    runId: report.runId,
    projectId,
    status: state.tally.status,
    counts: state.tally.counts(),
    duration: state.duration,
    suites: state.suites.size,
    artifacts: { uploaded: report.sent.artifacts + report.skipped.artifacts, bytes: report.bytes, notUploaded: state.notUploaded },
  };
}
