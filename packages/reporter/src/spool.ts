import { appendFileSync, closeSync, copyFileSync, createReadStream, mkdirSync, openSync, readdirSync, rmdirSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import type { TestReportClient } from '@testreport/client';
import { deliver, type Outgoing } from './delivery/deliver.js';
import { Delivery, type Ack } from './delivery/engine.js';
import { idempotencyKey, type AckRecord, type ArtifactRecord, type FinishRecord, type RunRecord, type SuiteRecord, type BatchRecord } from './delivery/records.js';
import { shardOf } from './ciBuild.js';
import { SPOOL_VERSION } from './spoolVersion.js';

export { idempotencyKey };
export type { RunBody } from './delivery/records.js';

/**
 * The spool is an append-only NDJSON journal of one run: what the reporter meant to send (run,
 * suites, test batches, artifacts, finish) and, as `ack` records, what the server confirmed with the
 * ids it assigned. Every record has a client id (`cid`, a UUID) and is sent with the idempotency key
 * `testreport-<kind>-<cid>`, so a replay skips what was acknowledged and the server deduplicates what
 * was delivered without an ack (within its 24 h idempotency window). Replaying appends its own acks,
 * so a second replay sends nothing.
 */
export { SPOOL_VERSION };

export type SpoolRecord =
  /** `runIdsFirst`: written by reporters that send a result's run ids first (delivery/engine.ts); absent before. */
  | { t: 'header'; v: number; cid: string; createdAt: string; url?: string; projectId?: string; reporter: string; runIdsFirst?: true }
  | { t: 'project'; id: string }
  | RunRecord
  | SuiteRecord
  | BatchRecord
  | ArtifactRecord
  | FinishRecord
  | AckRecord;

/** Writes journal records synchronously, so a crash or kill of the test process loses at most a line. */
export class SpoolWriter {
  private fd: number | null = null;
  readonly file: string;
  private failed = false;

  constructor(readonly dir: string, runCid: string) {
    const stamp = new Date().toISOString().replace(/[:.]/g, '-');
    this.file = resolve(dir, `run-${stamp}-${runCid.slice(0, 8)}.ndjson`);
  }

  write(record: SpoolRecord): void {
    this.writeLine(JSON.stringify(record));
  }

  /** A batch record whose results are serialised already: the line `write` would write for it. */
  writeBatch(cid: string, tests: readonly { cid: string; json: string }[]): void {
    this.writeLine(`{"t":"batch","cid":${JSON.stringify(cid)},"tests":[${tests.map((t) => `{"cid":${JSON.stringify(t.cid)},"body":${t.json}}`).join(',')}]}`);
  }

  private writeLine(json: string): void {
    if (this.failed) return;
    try {
      if (this.fd === null) {
        mkdirSync(this.dir, { recursive: true });
        this.fd = openSync(this.file, 'a');
      }
      writeSync(this.fd, json + '\n');
    } catch {
      // A read-only or full disk must not break the test run; delivery still works without the spool.
      this.failed = true;
    }
  }

  get usable(): boolean {
    return !this.failed && this.fd !== null;
  }

  private get filesDir(): string {
    return join(dirname(this.file), basename(this.file, '.ndjson') + '-files');
  }

  /**
   * Keeps an artifact next to the spool and returns its path relative to the spool's folder: a file
   * is copied (Playwright clears its output folder on the next run), a body is written out once.
   */
  keepFile(cid: string, fileName: string, source: string | Uint8Array): string | null {
    try {
      mkdirSync(this.filesDir, { recursive: true });
      const name = `${cid.slice(0, 8)}-${typeof source === 'string' ? basename(source) : fileName}`;
      if (typeof source === 'string') copyFileSync(source, join(this.filesDir, name));
      else writeFileSync(join(this.filesDir, name), source);
      return `${basename(this.filesDir)}/${name}`;
    } catch {
      return null;
    }
  }

  close(): void {
    if (this.fd !== null) closeSync(this.fd);
    this.fd = null;
  }

  /** Everything was delivered: the journal and its kept files are not needed, nor the folder if now empty. */
  remove(): void {
    this.close();
    this.failed = true;
    try {
      rmSync(this.file, { force: true });
      rmSync(this.filesDir, { recursive: true, force: true });
      if (readdirSync(this.dir).length === 0) rmdirSync(this.dir);
    } catch {
      /* best effort */
    }
  }
}

export interface ReplayProgress {
  phase: 'run' | 'suites' | 'tests' | 'artifacts' | 'finish';
  done: number;
  total: number;
}

export interface ReplayResult {
  runId: string;
  projectId: string;
  /** Records sent by this replay. */
  sent: { run: number; suites: number; tests: number; artifacts: number; finish: number };
  /** Records already acknowledged by an earlier delivery (skipped). */
  skipped: { run: number; suites: number; tests: number; artifacts: number; finish: number };
  /** Artifacts whose file is gone or that the server refused. */
  failedArtifacts: { fileName: string; reason: string }[];
}

async function* records(file: string): AsyncGenerator<SpoolRecord> {
  const lines = createInterface({ input: createReadStream(file, 'utf8'), crlfDelay: Infinity });
  for await (const line of lines) {
    if (!line.trim()) continue;
    try {
      yield JSON.parse(line) as SpoolRecord;
    } catch {
      // The last line may be cut short by a crash; everything before it is still good.
    }
  }
}

/** Everything in a spool but test bodies (which are streamed later), with the acks merged by cid. */
interface SpoolIndex {
  header: Extract<SpoolRecord, { t: 'header' }>;
  run: RunRecord;
  projectId: string | undefined;
  suites: SuiteRecord[];
  batches: number;
  /** The last record per cid wins: the reporter rewrites an artifact's path when it keeps the file. */
  artifacts: Map<string, ArtifactRecord>;
  finish: FinishRecord | undefined;
  acks: Map<string, Ack>;
}

async function indexSpool(file: string): Promise<SpoolIndex> {
  let header: SpoolIndex['header'] | undefined;
  let run: RunRecord | undefined;
  const index: Omit<SpoolIndex, 'header' | 'run'> = { projectId: undefined, suites: [], batches: 0, artifacts: new Map(), finish: undefined, acks: new Map() };
  for await (const r of records(file)) {
    if (r.t === 'header') header = r;
    else if (r.t === 'project') index.projectId = r.id;
    else if (r.t === 'run') run = r;
    else if (r.t === 'suite') index.suites.push(r);
    else if (r.t === 'batch') index.batches++;
    else if (r.t === 'artifact') index.artifacts.set(r.cid, r);
    else if (r.t === 'finish') index.finish = r;
    else if (r.t === 'ack') index.acks.set(r.cid, { ...index.acks.get(r.cid), ...r });
  }
  if (!header || !run || header.v !== SPOOL_VERSION) throw new Error(`${file} is not a testreport spool file (version ${SPOOL_VERSION})`);
  return { ...index, header, run };
}

/** The spool as a record stream for the delivery engine: run, suites, batches, artifacts, finish. */
async function* outgoing(file: string, s: SpoolIndex): AsyncGenerator<Outgoing> {
  yield s.run;
  yield* s.suites;
  for await (const r of records(file)) if (r.t === 'batch') yield r;
  for (const a of s.artifacts.values()) {
    const path = isAbsolute(a.path) ? a.path : resolve(dirname(file), a.path);
    yield { t: 'artifact', testCid: a.testCid, job: { cid: a.cid, type: a.type, fileName: a.fileName, source: path, ...(a.retry !== undefined ? { retry: a.retry } : {}), ...(a.snapshotPath ? { snapshotPath: a.snapshotPath } : {}) } };
  }
  // Without a finish record the reporter never reached onEnd (killed or crashed): the run did not complete.
  yield s.finish ?? { t: 'finish', cid: `${s.run.cid}-finish`, body: { status: 'cancelled', ...shardOf(s.run.body) } };
}

/**
 * Sends what a spool file holds and the server has not acknowledged, in order (run, suites, tests,
 * artifacts, finish), and appends the acks to the file. Safe to run again after a partial failure.
 */
export async function replaySpool(
  file: string,
  client: TestReportClient,
  opts: { onProgress?: (p: ReplayProgress) => void } = {},
): Promise<ReplayResult> {
  const index = await indexSpool(file);
  let projectId = index.projectId ?? index.header.projectId;
  const me = await client.verify(projectId ? { projectId } : {});
  if (!projectId) {
    if (me.type !== 'apiKey') throw new Error('The spool does not name its project; replay it with the project API key.');
    projectId = me.apiKey.projectId;
  }
  const delivery = new Delivery({
    client,
    projectId,
    key: (kind, cid) => idempotencyKey(kind, cid),
    acked: index.acks,
    runIdsFirst: index.header.runIdsFirst === true,
    onAck: (ack) => appendFileSync(file, JSON.stringify({ t: 'ack', ...ack }) + '\n'),
    // One at a time, as the journal is read: a replay is a catch-up, not a race.
    concurrency: 1,
  });
  const totals = { run: 1, suite: index.suites.length, batch: index.batches, artifact: index.artifacts.size, finish: 1 };
  const phases = { run: 'run', suite: 'suites', batch: 'tests', artifact: 'artifacts', finish: 'finish' } as const;
  const done = { run: 0, suite: 0, batch: 0, artifact: 0, finish: 0 };
  const report = await deliver(outgoing(file, index), delivery, {
    keepTestIds: true,
    onProgress: (_r, kind) => opts.onProgress?.({ phase: phases[kind], done: ++done[kind], total: totals[kind] }),
  });
  return { runId: report.runId, projectId, sent: report.sent, skipped: report.skipped, failedArtifacts: report.refused };
}
