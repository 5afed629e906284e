import { closeSync, copyFileSync, createReadStream, mkdirSync, openSync, readdirSync, rmdirSync, rmSync, writeSync, appendFileSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import type { TestReportClient } from '@testreport/client';
import type { ArtifactType, RunCreate, RunUpdate } from '@testreport/contract';
import type { TestBody } from './mapping.js';

/**
 * The spool is an append-only NDJSON journal of one run: what the reporter meant to send (run,
 * suites, test batches, artifacts, finish) and, as `ack` records, what the server confirmed with the
 * ids it assigned. Every record has a client id (`cid`, a UUID) and is sent with the idempotency key
 * `testreport-<kind>-<cid>`, so a replay skips what was acknowledged and the server deduplicates what
 * was delivered without an ack (within its 24 h idempotency window). Replaying appends its own acks,
 * so a second replay sends nothing.
 */
export const SPOOL_VERSION = 1;

export type RunBody = Omit<RunCreate, 'projectId' | 'status'>;

export type SpoolRecord =
  | { t: 'header'; v: number; cid: string; createdAt: string; url?: string; projectId?: string; reporter: string }
  | { t: 'project'; id: string }
  | { t: 'run'; cid: string; body: RunBody }
  | { t: 'suite'; cid: string; parentCid: string | null; body: { title: string; filePath?: string } }
  | { t: 'batch'; cid: string; tests: { cid: string; body: TestBody }[] }
  | { t: 'artifact'; cid: string; testCid: string; type: ArtifactType; fileName: string; path: string }
  | { t: 'finish'; cid: string; body: RunUpdate }
  | { t: 'ack'; cid: string; id?: string; ids?: string[] };

export const idempotencyKey = (kind: 'run' | 'suite' | 'batch' | 'artifact' | 'finish', cid: string): string =>
  `testreport-${kind}-${cid}`;

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
    if (this.failed) return;
    try {
      if (this.fd === null) {
        mkdirSync(this.dir, { recursive: true });
        this.fd = openSync(this.file, 'a');
      }
      writeSync(this.fd, JSON.stringify(record) + '\n');
    } catch {
      // A read-only or full disk must not break the test run; delivery still works without the spool.
      this.failed = true;
    }
  }

  get usable(): boolean {
    return !this.failed && this.fd !== null;
  }

  /** Copies an artifact next to the spool, because Playwright clears its output folder on the next run. */
  keepFile(cid: string, source: string): string | null {
    try {
      const dir = join(dirname(this.file), basename(this.file, '.ndjson') + '-files');
      mkdirSync(dir, { recursive: true });
      const name = `${cid.slice(0, 8)}-${basename(source)}`;
      copyFileSync(source, join(dir, name));
      return `${basename(dir)}/${name}`;
    } catch {
      return null;
    }
  }

  close(): void {
    if (this.fd !== null) closeSync(this.fd);
    this.fd = null;
  }

  /** Everything was delivered: the journal is not needed, nor the folder if it is now empty. */
  remove(): void {
    this.close();
    this.failed = true;
    try {
      rmSync(this.file, { force: true });
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

/**
 * Sends what a spool file holds and the server has not acknowledged, in order (run, suites, tests,
 * artifacts, finish), and appends the acks to the file. Safe to run again after a partial failure.
 */
export async function replaySpool(
  file: string,
  client: TestReportClient,
  opts: { onProgress?: (p: ReplayProgress) => void } = {},
): Promise<ReplayResult> {
  const acks = new Map<string, { id?: string; ids?: string[] }>();
  let header: Extract<SpoolRecord, { t: 'header' }> | undefined;
  let run: Extract<SpoolRecord, { t: 'run' }> | undefined;
  let finish: Extract<SpoolRecord, { t: 'finish' }> | undefined;
  let projectId: string | undefined;
  const suites: Extract<SpoolRecord, { t: 'suite' }>[] = [];
  const batchIds: string[] = [];
  const artifacts = new Map<string, Extract<SpoolRecord, { t: 'artifact' }>>();

  // Pass 1 keeps everything but test bodies, which pass 2 streams batch by batch.
  for await (const r of records(file)) {
    if (r.t === 'header') header = r;
    else if (r.t === 'project') projectId = r.id;
    else if (r.t === 'run') run = r;
    else if (r.t === 'suite') suites.push(r);
    else if (r.t === 'batch') batchIds.push(r.cid);
    else if (r.t === 'artifact') artifacts.set(r.cid, r);
    else if (r.t === 'finish') finish = r;
    else if (r.t === 'ack') acks.set(r.cid, { ...acks.get(r.cid), ...r });
  }
  if (!header || !run || header.v !== SPOOL_VERSION) throw new Error(`${file} is not a testreport spool file (version ${SPOOL_VERSION})`);

  const ack = (record: Extract<SpoolRecord, { t: 'ack' }>) => {
    appendFileSync(file, JSON.stringify(record) + '\n');
    acks.set(record.cid, record);
  };
  const sent = { run: 0, suites: 0, tests: 0, artifacts: 0, finish: 0 };
  const skipped = { run: 0, suites: 0, tests: 0, artifacts: 0, finish: 0 };
  const progress = opts.onProgress ?? (() => {});

  projectId ??= header.projectId;
  const me = await client.verify(projectId ? { projectId } : {});
  if (!projectId) {
    if (me.type !== 'apiKey') throw new Error('The spool does not name its project; replay it with the project API key.');
    projectId = me.apiKey.projectId;
  }

  let runId = acks.get(run.cid)?.id;
  if (runId) skipped.run++;
  else {
    const created = await client.runs.create({ ...run.body, projectId, status: 'running' }, { idempotencyKey: idempotencyKey('run', run.cid) });
    runId = created.id;
    ack({ t: 'ack', cid: run.cid, id: runId });
    sent.run++;
  }
  progress({ phase: 'run', done: 1, total: 1 });

  let done = 0;
  for (const s of suites) {
    if (acks.get(s.cid)?.id) skipped.suites++;
    else {
      const parentSuiteId = s.parentCid ? acks.get(s.parentCid)?.id ?? null : null;
      const suite = await client.testSuites.upsert(
        { ...s.body, runId, projectId, parentSuiteId },
        { idempotencyKey: idempotencyKey('suite', s.cid) },
      );
      ack({ t: 'ack', cid: s.cid, id: suite.id });
      sent.suites++;
    }
    progress({ phase: 'suites', done: ++done, total: suites.length });
  }

  const testCidToId = new Map<string, string>();
  done = 0;
  for await (const r of records(file)) {
    if (r.t !== 'batch') continue;
    let ids = acks.get(r.cid)?.ids;
    if (ids) skipped.tests += r.tests.length;
    else {
      // The same batch under the same key as the live attempt: a delivery whose answer was lost is not repeated.
      const res = await client.tests.createBatch(
        r.tests.map((t) => ({ ...t.body, runId: runId!, projectId: projectId! })),
        { idempotencyKey: idempotencyKey('batch', r.cid) },
      );
      ids = res.data.map((d) => d.id);
      ack({ t: 'ack', cid: r.cid, ids });
      sent.tests += r.tests.length;
    }
    r.tests.forEach((t, i) => ids && ids[i] && testCidToId.set(t.cid, ids[i]));
    done++;
    progress({ phase: 'tests', done, total: batchIds.length });
  }

  const failedArtifacts: ReplayResult['failedArtifacts'] = [];
  done = 0;
  for (const a of artifacts.values()) {
    if (acks.get(a.cid)?.id) skipped.artifacts++;
    else {
      const path = isAbsolute(a.path) ? a.path : resolve(dirname(file), a.path);
      try {
        const testId = testCidToId.get(a.testCid);
        const art = await client.artifacts.upload(
          { file: path, fileName: a.fileName, type: a.type, runId, projectId, ...(testId ? { testId } : {}) },
          { idempotencyKey: idempotencyKey('artifact', a.cid) },
        );
        ack({ t: 'ack', cid: a.cid, id: art.id });
        sent.artifacts++;
      } catch (e) {
        // A missing or refused file is not worth failing the whole replay; the caller reports it.
        const status = (e as { status?: number }).status;
        if (status !== undefined && status >= 500) throw e;
        if ((e as { name?: string }).name === 'ConnectionError') throw e;
        failedArtifacts.push({ fileName: a.fileName, reason: (e as Error).message });
      }
    }
    progress({ phase: 'artifacts', done: ++done, total: artifacts.size });
  }

  // Without a finish record the reporter never reached onEnd (killed or crashed): the run did not complete.
  const finishCid = finish?.cid ?? `${run.cid}-finish`;
  if (acks.get(finishCid)) skipped.finish++;
  else {
    await client.runs.update(runId, finish?.body ?? { status: 'cancelled' });
    ack({ t: 'ack', cid: finishCid, id: runId });
    sent.finish++;
  }
  progress({ phase: 'finish', done: 1, total: 1 });
  return { runId, projectId, sent, skipped, failedArtifacts };
}
