import { randomUUID } from 'node:crypto';
import { statSync } from 'node:fs';
import { extname, basename } from 'node:path';
import type { FullConfig, FullResult, Reporter, Suite, TestCase, TestError, TestResult } from '@playwright/test/reporter';
import { TestReportClient } from '@testreport/client';
import { ARTIFACT_RULES, checkApiKey, KEY_PROBLEM_MESSAGES, type ArtifactType, type RunUpdate } from '@testreport/contract';
import { detectCi } from './ci.js';
import { isFinalAttempt, mapTest, relativeFile, type TestBody } from './mapping.js';
import { resolveOptions, type ReporterOptions, type ResolvedOptions } from './options.js';
import { runBody } from './runMeta.js';
import { idempotencyKey, replaySpool, SpoolWriter, type SpoolRecord } from './spool.js';

const BATCH_SIZE = 50;
const FLUSH_MS = 1_000;
const SEND_CONCURRENCY = 2;
const MAX_SUITES = 1_000;
const SUITE_CONCURRENCY = 4;
// Beyond this many batches waiting for a slow server, new ones stay only in the spool (bounded memory).
const MAX_PENDING_BATCHES = 20;
const PREFIX = '[testreport]';

type Mode = 'disabled' | 'online' | 'offline';
type Pending = { cid: string; body: TestBody; artifacts: PendingArtifact[] };
type PendingArtifact = Extract<SpoolRecord, { t: 'artifact' }>;

/** A tiny promise pool: bounded concurrency without another dependency in the reporter's graph. */
class Pool {
  private active = 0;
  private waiting: (() => void)[] = [];
  private all = new Set<Promise<unknown>>();
  constructor(private readonly size: number) {}
  run(task: () => Promise<void>): void {
    const p = (async () => {
      if (this.active >= this.size) await new Promise<void>((r) => this.waiting.push(r));
      this.active++;
      try {
        await task();
      } finally {
        this.active--;
        this.waiting.shift()?.();
      }
    })().catch(() => {});
    this.all.add(p);
    void p.finally(() => this.all.delete(p));
  }
  /** Tasks started or waiting. */
  get pending(): number {
    return this.all.size;
  }
  async drain(): Promise<void> {
    while (this.all.size) await Promise.allSettled([...this.all]);
  }
}

const status = (e: unknown): number | undefined => (e as { status?: number })?.status;
const isKeyProblem = (e: unknown): boolean =>
  ['KeyValidationError', 'InsecureTransportError'].includes((e as { name?: string })?.name ?? '') || (e as { problem?: unknown })?.problem !== undefined;

/**
 * The Playwright reporter. Nothing here may throw into Playwright or change the exit code (except
 * the quarantine rule): failures end in one warning line and, when the server is unreachable, a spool.
 */
export class TestReportReporter implements Reporter {
  private readonly opts: ResolvedOptions;
  private mode: Mode = 'disabled';
  private client!: TestReportClient;
  private spool!: SpoolWriter;
  private config!: FullConfig;
  private multiProject = false;
  private runCid = randomUUID();
  private runId: string | undefined;
  private projectId: string | undefined;
  private ready: Promise<void> = Promise.resolve();
  private readonly pool = new Pool(SEND_CONCURRENCY);
  private queue: Pending[] = [];
  private timer: NodeJS.Timeout | undefined;
  private readonly awaitingRetry = new Set<TestCase>();
  private readonly unsentArtifacts = new Map<string, PendingArtifact>();
  private undelivered = false;
  /** Batches left in the spool only, sent by a replay of the spool in onEnd. */
  private deferred = false;
  private offlineReason: string | undefined;
  private quarantined = new Set<string>();
  private globalErrors = 0;
  private readonly counts = { total: 0, passed: 0, failed: 0, skipped: 0, flaky: 0 };
  private readonly failures: { key: string; fullTitle: string }[] = [];
  private readonly skippedArtifacts: string[] = [];
  private readonly droppedBatches: string[] = [];

  constructor(options: ReporterOptions = {}) {
    this.opts = resolveOptions(options);
  }

  printsToStdio(): boolean {
    return false;
  }

  onBegin(config: FullConfig, suite: Suite): void {
    try {
      this.begin(config, suite);
    } catch (e) {
      this.disable(`reporting disabled: ${(e as Error).message}`);
    }
  }

  onTestEnd(test: TestCase, result: TestResult): void {
    if (this.mode === 'disabled') return;
    try {
      if (!isFinalAttempt(test, result)) {
        this.awaitingRetry.add(test);
        return;
      }
      this.awaitingRetry.delete(test);
      this.record(test);
    } catch {
      // A test we cannot map is left out rather than breaking the run.
    }
  }

  onError(_error: TestError): void {
    this.globalErrors++;
  }

  async onEnd(result: FullResult): Promise<{ status?: FullResult['status'] } | undefined> {
    if (this.mode === 'disabled') return undefined;
    try {
      return await this.end(result);
    } catch (e) {
      this.say(`could not finish reporting: ${(e as Error).message}`);
      return undefined;
    }
  }

  // ---------------------------------------------------------------------------------------------

  private say(line: string): void {
    process.stderr.write(`${PREFIX} ${line}\n`);
  }

  private disable(reason: string): void {
    this.say(reason);
    this.mode = 'disabled';
    this.queue = [];
    this.spool?.remove();
  }

  private begin(config: FullConfig, root: Suite): void {
    if (!this.opts.enabled) return;
    this.config = config;
    this.multiProject = config.projects.length > 1;
    const problem = checkApiKey(this.opts.apiKey);
    if (problem) {
      this.say(`reporting disabled: ${KEY_PROBLEM_MESSAGES[problem]}`);
      return;
    }
    this.client = new TestReportClient({
      apiKey: this.opts.apiKey,
      url: this.opts.url,
      allowInsecureHttp: this.opts.allowInsecureHttp,
      userAgent: `testreport-reporter/0.1.0 playwright/${config.version}`,
      ...(this.opts.timeoutMs ? { timeoutMs: this.opts.timeoutMs } : {}),
      ...(this.opts.retryBudgetMs ? { retryBudgetMs: this.opts.retryBudgetMs } : {}),
      ...(this.opts.maxRetries !== undefined ? { maxRetries: this.opts.maxRetries } : {}),
    });
    this.mode = 'online';
    this.spool = new SpoolWriter(this.opts.outputDir, this.runCid);
    this.spool.write({
      t: 'header', v: 1, cid: this.runCid, createdAt: new Date().toISOString(), url: this.opts.url,
      ...(this.opts.projectId ? { projectId: this.opts.projectId } : {}), reporter: `@testreport/reporter playwright/${config.version}`,
    });
    const body = runBody(config, root, this.opts, detectCi());
    this.spool.write({ t: 'run', cid: this.runCid, body });
    const suites = this.suiteRecords(root);
    for (const s of suites) this.spool.write(s);

    this.ready = this.connect(body, suites);
  }

  /** Spec rules 1–4 are checked (locally, then GET /me) before the run is created. */
  private async connect(body: ReturnType<typeof runBody>, suites: Extract<SpoolRecord, { t: 'suite' }>[]): Promise<void> {
    try {
      const me = await this.client.verify(this.opts.projectId ? { projectId: this.opts.projectId } : {});
      this.projectId = this.opts.projectId ?? (me.type === 'apiKey' ? me.apiKey.projectId : undefined);
      if (!this.projectId) return this.disable('reporting disabled: no project (set projectId or use a project API key)');
      if (!this.opts.projectId) this.spool.write({ t: 'project', id: this.projectId });
    } catch (e) {
      const s = status(e);
      if (isKeyProblem(e) || s === 401 || s === 403 || s === 404 || (s !== undefined && s < 500 && s !== 429)) {
        return this.disable(`reporting disabled: ${(e as Error).message}`);
      }
      return this.goOffline(e);
    }
    if (this.opts.quarantine) {
      try {
        const list = await this.client.flakiness.list({ projectId: this.projectId, quarantined: 'true', limit: 500 });
        for (const q of list.data) if (q.isQuarantined) this.quarantined.add(`${q.filePath ?? ''}\n${q.fullTitle}`);
      } catch {
        // Without the list nothing is forgiven; the run is still reported.
      }
    }
    try {
      const run = await this.client.runs.create({ ...body, projectId: this.projectId, status: 'running' }, { idempotencyKey: idempotencyKey('run', this.runCid) });
      this.runId = run.id;
      this.spool.write({ t: 'ack', cid: this.runCid, id: run.id });
      await this.sendSuites(suites);
    } catch (e) {
      this.goOffline(e);
    }
  }

  private goOffline(e: unknown): void {
    if (this.mode !== 'online') return;
    this.mode = 'offline';
    this.undelivered = true;
    this.offlineReason = (e as Error)?.message ?? String(e);
    this.say(`cannot reach ${this.opts.url} (${this.offlineReason}); results go to ${this.spool.file}`);
  }

  /** File suites and describe blocks, deduplicated across projects (the same file is one suite). */
  private suiteRecords(root: Suite): Extract<SpoolRecord, { t: 'suite' }>[] {
    const out: Extract<SpoolRecord, { t: 'suite' }>[] = [];
    const seen = new Map<string, string>();
    const walk = (s: Suite, parentCid: string | null, parentKey: string) => {
      if (out.length >= MAX_SUITES) return;
      const filePath = s.location ? relativeFile(this.config, s.location.file) : undefined;
      const title = s.type === 'file' ? filePath ?? s.title : s.title;
      if (!title) return;
      const key = `${parentKey}\n${title}\n${filePath ?? ''}`;
      let cid = seen.get(key);
      if (!cid) {
        cid = randomUUID();
        seen.set(key, cid);
        out.push({ t: 'suite', cid, parentCid, body: { title, ...(filePath ? { filePath } : {}) } });
      }
      for (const child of s.suites) walk(child, cid, key);
    };
    for (const project of root.suites) for (const file of project.suites) walk(file, null, '');
    return out;
  }

  private async sendSuites(suites: Extract<SpoolRecord, { t: 'suite' }>[]): Promise<void> {
    const ids = new Map<string, string>();
    // Parents come before children in the list; one level at a time keeps parents resolvable.
    let level = suites.filter((s) => s.parentCid === null);
    while (level.length && this.mode === 'online') {
      for (let i = 0; i < level.length; i += SUITE_CONCURRENCY)
        await Promise.all(
          level.slice(i, i + SUITE_CONCURRENCY).map(async (s) => {
            const suite = await this.client.testSuites.upsert(
              { ...s.body, runId: this.runId!, projectId: this.projectId!, parentSuiteId: s.parentCid ? ids.get(s.parentCid) ?? null : null },
              { idempotencyKey: idempotencyKey('suite', s.cid) },
            );
            ids.set(s.cid, suite.id);
            this.spool.write({ t: 'ack', cid: s.cid, id: suite.id });
          }),
        );
      const parents = new Set(level.map((s) => s.cid));
      level = suites.filter((s) => s.parentCid !== null && parents.has(s.parentCid));
    }
  }

  private record(test: TestCase): void {
    const body = mapTest(test, this.config, this.multiProject);
    this.counts.total++;
    this.counts[body.status]++;
    if (body.status === 'failed') this.failures.push({ key: `${body.filePath ?? ''}\n${body.fullTitle}`, fullTitle: body.fullTitle });
    const cid = randomUUID();
    this.queue.push({ cid, body, artifacts: this.artifactsOf(test, cid) });
    if (this.queue.length >= BATCH_SIZE) this.flush();
    else if (!this.timer) {
      this.timer = setTimeout(() => this.flush(), FLUSH_MS);
      this.timer.unref();
    }
  }

  private artifactsOf(test: TestCase, testCid: string): PendingArtifact[] {
    if (this.opts.uploadArtifacts === 'none') return [];
    const out: PendingArtifact[] = [];
    for (const r of test.results) {
      if (this.opts.uploadArtifacts === 'failures' && (r.status === test.expectedStatus || r.status === 'skipped')) continue;
      for (const a of r.attachments) {
        if (!a.path) continue;
        const type: ArtifactType | null = a.contentType.startsWith('image/')
          ? 'screenshot'
          : a.contentType.startsWith('video/')
            ? 'video'
            : a.name === 'trace' || a.contentType === 'application/zip'
              ? 'trace'
              : null;
        if (!type) continue;
        const rule = ARTIFACT_RULES[type];
        const ext = extname(a.path).slice(1).toLowerCase();
        let size = 0;
        try {
          size = statSync(a.path).size;
        } catch {
          continue;
        }
        if (size > rule.maxBytes || (ext && !rule.formats.includes(ext))) {
          this.skippedArtifacts.push(basename(a.path));
          continue;
        }
        out.push({ t: 'artifact', cid: randomUUID(), testCid, type, fileName: basename(a.path), path: a.path });
      }
    }
    return out;
  }

  private flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (!this.queue.length) return;
    const tests = this.queue;
    this.queue = [];
    const batchCid = randomUUID();
    this.spool.write({ t: 'batch', cid: batchCid, tests: tests.map((t) => ({ cid: t.cid, body: t.body })) });
    for (const t of tests) for (const a of t.artifacts) {
      this.spool.write(a);
      this.unsentArtifacts.set(a.cid, a);
    }
    if (this.pool.pending >= MAX_PENDING_BATCHES) {
      this.deferred = true;
      return;
    }
    this.pool.run(() => this.sendBatch(batchCid, tests));
  }

  private async sendBatch(batchCid: string, tests: Pending[]): Promise<void> {
    await this.ready;
    if (this.mode !== 'online' || !this.runId) {
      if (this.mode === 'offline') this.undelivered = true;
      return;
    }
    let ids: string[];
    try {
      const res = await this.client.tests.createBatch(
        tests.map((t) => ({ ...t.body, runId: this.runId!, projectId: this.projectId! })),
        { idempotencyKey: idempotencyKey('batch', batchCid) },
      );
      ids = res.data.map((d) => d.id);
      this.spool.write({ t: 'ack', cid: batchCid, ids });
    } catch (e) {
      const s = status(e);
      if (s === 400 || s === 413) {
        // The server refuses this payload; replaying it would be refused again.
        this.droppedBatches.push(`${tests.length} tests (${(e as Error).message})`);
        for (const t of tests) for (const a of t.artifacts) this.unsentArtifacts.delete(a.cid);
        return;
      }
      return this.goOffline(e);
    }
    tests.forEach((t, i) => {
      for (const a of t.artifacts) this.pool.run(() => this.sendArtifact(a, ids[i]));
    });
  }

  private async sendArtifact(a: PendingArtifact, testId: string | undefined): Promise<void> {
    if (this.mode !== 'online') return;
    try {
      const art = await this.client.artifacts.upload(
        { file: a.path, fileName: a.fileName, type: a.type, runId: this.runId!, projectId: this.projectId!, ...(testId ? { testId } : {}) },
        { idempotencyKey: idempotencyKey('artifact', a.cid) },
      );
      this.spool.write({ t: 'ack', cid: a.cid, id: art.id });
      this.unsentArtifacts.delete(a.cid);
    } catch (e) {
      const s = status(e);
      if (s !== undefined && s < 500 && s !== 429 && s !== 401 && s !== 403) {
        this.skippedArtifacts.push(a.fileName);
        this.unsentArtifacts.delete(a.cid);
        return;
      }
      this.goOffline(e);
    }
  }

  private async end(result: FullResult): Promise<{ status?: FullResult['status'] } | undefined> {
    // Tests whose retry never came (maxFailures, interruption) are reported with what they have.
    for (const test of this.awaitingRetry) if (test.results.length) this.record(test);
    this.awaitingRetry.clear();
    this.flush();
    await this.ready;
    await this.pool.drain();

    const forgiven = this.forgiven(result);
    const finalStatus: RunUpdate['status'] = forgiven.length
      ? 'passed'
      : result.status === 'passed'
        ? 'passed'
        : result.status === 'interrupted'
          ? 'cancelled'
          : 'failed';
    const finish: RunUpdate = {
      status: finalStatus,
      totalTests: this.counts.total,
      passedTests: this.counts.passed,
      failedTests: this.counts.failed,
      skippedTests: this.counts.skipped,
      flakyTests: this.counts.flaky,
      duration: Math.max(0, Math.round(result.duration)),
    };
    const finishCid = `${this.runCid}-finish`;
    this.spool.write({ t: 'finish', cid: finishCid, body: finish });
    if (this.mode === 'online' && this.runId && this.deferred) {
      // The spool holds what memory did not; replaying it sends exactly the unacknowledged rest and the finish.
      try {
        const replay = await replaySpool(this.spool.file, this.client);
        this.unsentArtifacts.clear();
        this.skippedArtifacts.push(...replay.failedArtifacts.map((a) => a.fileName));
      } catch (e) {
        this.goOffline(e);
      }
    } else if (this.mode === 'online' && this.runId) {
      try {
        await this.client.runs.update(this.runId, finish);
        this.spool.write({ t: 'ack', cid: finishCid, id: this.runId });
      } catch (e) {
        this.goOffline(e);
      }
    }

    const c = this.counts;
    const summary = `${c.total} tests: ${c.passed} passed, ${c.failed} failed, ${c.flaky} flaky, ${c.skipped} skipped`;
    if (this.skippedArtifacts.length) {
      this.say(`${this.skippedArtifacts.length} artifact(s) not uploaded (over the size cap, unsupported or refused): ${this.skippedArtifacts.slice(0, 3).join(', ')}${this.skippedArtifacts.length > 3 ? ', …' : ''}`);
    }
    if (this.droppedBatches.length) this.say(`the server refused ${this.droppedBatches.join('; ')}`);
    if (this.mode === 'online' && !this.undelivered) {
      this.spool.remove();
      this.say(`${summary} — ${this.opts.url}/runs/${this.runId}`);
    } else {
      this.keepSpoolFiles();
      this.spool.close();
      if (this.spool.usable || this.spoolExists()) {
        this.say(`${summary}; not delivered, spooled to ${this.spool.file} — send it later with: npx reporter upload ${this.spool.file}`);
      } else {
        this.say(`${summary}; not delivered and the spool could not be written`);
      }
    }
    if (forgiven.length) {
      this.say(`all ${forgiven.length} failure(s) are quarantined, run passes: ${forgiven.slice(0, 5).join('; ')}${forgiven.length > 5 ? '; …' : ''}`);
      return { status: 'passed' };
    }
    return undefined;
  }

  private spoolExists(): boolean {
    try {
      return statSync(this.spool.file).isFile();
    } catch {
      return false;
    }
  }

  /** Copies artifacts the server never got next to the spool and points their records at the copies. */
  private keepSpoolFiles(): void {
    for (const a of this.unsentArtifacts.values()) {
      const kept = this.spool.keepFile(a.cid, a.path);
      if (kept) this.spool.write({ ...a, path: kept });
    }
  }

  /** The failures forgiven by quarantine: all of them, or none when one is not quarantined. */
  private forgiven(result: FullResult): string[] {
    if (!this.opts.quarantine || result.status !== 'failed' || this.globalErrors > 0) return [];
    if (!this.failures.length || !this.failures.every((f) => this.quarantined.has(f.key))) return [];
    return this.failures.map((f) => f.fullTitle);
  }
}

