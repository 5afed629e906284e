import { randomUUID } from 'node:crypto';
import { statSync } from 'node:fs';
import type { FullConfig, FullResult, Reporter, Suite, TestCase, TestError, TestResult } from '@playwright/test/reporter';
import { TestReportClient } from '@testreport/client/core';
import { checkApiKey, KEY_PROBLEM_MESSAGES } from '@testreport/contract/core';
import { artifactsOf } from './attachments.js';
import type { CiMetadata } from './ci.js';
import { shardOf } from './ciBuild.js';
import { LiveDelivery } from './live.js';
import { isFinalAttempt, mapTest, suiteRecords } from './mapping.js';
import type { ResolvedOptions } from './options.js';
import { runBody } from './runMeta.js';
import { SpoolWriter } from './spool.js';
import { writeJobSummary } from './jobSummary.js';
import { RunSummary, someOf } from './summary.js';
import { say } from './say.js';

/**
 * The reporter's work once Playwright has begun (reporter.ts loads this module in the background at
 * `onBegin`): adapts Playwright's callbacks to records (mapping.ts, attachments.ts), hands them to
 * the live delivery (live.ts) and prints the summary (summary.ts). Nothing here may throw into
 * Playwright or change the exit code (except the quarantine rule): failures end in one warning line
 * and, when the server is unreachable, a spool.
 */
export class ReportSession implements Pick<Reporter, 'onBegin' | 'onTestEnd' | 'onError' | 'onEnd'> {
  private live: LiveDelivery | undefined;
  private client: TestReportClient | undefined;
  private spool!: SpoolWriter;
  private config!: FullConfig;
  private multiProject = false;
  private readonly runCid = randomUUID();
  private readonly awaitingRetry = new Set<TestCase>();
  private readonly summary = new RunSummary();
  private readonly skippedArtifacts: string[] = [];
  /** Which shard (and attempt) of a CI build this process is: its finish ends that shard only. */
  private shard: ReturnType<typeof shardOf> = {};
  /** " (shard 2/3 of CI build 123)" on the summary line, so a job's log says which run it joined. */
  private shardNote = '';

  /** `ci`: what the CI's variables and the git checkout say (reporter.ts detects it while this module loads). */
  constructor(
    private readonly opts: ResolvedOptions,
    private readonly ci: CiMetadata,
  ) {}

  onBegin(config: FullConfig, suite: Suite): void {
    try {
      this.begin(config, suite);
    } catch (e) {
      this.disable(`reporting disabled: ${(e as Error).message}`);
    }
  }

  onTestEnd(test: TestCase, result: TestResult): void {
    if (!this.active) return;
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
    this.summary.globalErrors++;
  }

  async onEnd(result: FullResult): Promise<{ status?: FullResult['status'] } | undefined> {
    if (!this.active) return undefined;
    try {
      return await this.end(result);
    } catch (e) {
      this.say(`could not finish reporting: ${(e as Error).message}`);
      return undefined;
    }
  }

  // ---------------------------------------------------------------------------------------------

  private get active(): boolean {
    return this.live !== undefined && this.live.mode !== 'disabled';
  }

  private say(line: string): void {
    say(line);
  }

  private disable(reason: string): void {
    this.say(reason);
    if (this.live) this.live.mode = 'disabled';
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
    const client = new TestReportClient({
      apiKey: this.opts.apiKey,
      url: this.opts.url,
      allowInsecureHttp: this.opts.allowInsecureHttp,
      userAgent: `testreport-reporter/0.1.0 playwright/${config.version}`,
      // Node's http module is loaded already; undici would cost Playwright's process ~50 ms of CPU to load.
      http: 'node',
      ...(this.opts.timeoutMs ? { timeoutMs: this.opts.timeoutMs } : {}),
      ...(this.opts.retryBudgetMs ? { retryBudgetMs: this.opts.retryBudgetMs } : {}),
      ...(this.opts.maxRetries !== undefined ? { maxRetries: this.opts.maxRetries } : {}),
    });
    this.client = client;
    this.spool = new SpoolWriter(this.opts.outputDir, this.runCid);
    this.spool.write({
      t: 'header', v: 1, cid: this.runCid, createdAt: new Date().toISOString(), url: this.opts.url,
      ...(this.opts.projectId ? { projectId: this.opts.projectId } : {}), reporter: `@testreport/reporter playwright/${config.version}`, runIdsFirst: true,
    });
    const body = runBody(config, root, this.opts, this.ci);
    this.shard = shardOf(body);
    if (body.ciBuildId && (body.shardTotal ?? 1) > 1) this.shardNote = ` (shard ${body.shardCurrent}/${body.shardTotal} of CI build ${body.ciBuildId})`;
    this.spool.write({ t: 'run', cid: this.runCid, body });
    const suites = suiteRecords(root, config);
    for (const s of suites) this.spool.write(s);

    this.live = new LiveDelivery(client, this.spool, this.opts.url, {
      say: (line) => this.say(line),
      disable: (reason) => this.disable(reason),
      connected: async (c, projectId) => {
        if (this.opts.quarantine) await this.summary.loadQuarantine(c, projectId);
      },
    }, this.opts.projectId);
    this.live.start(this.runCid, body, suites, this.opts.projectId, root.allTests().length);
  }

  private record(test: TestCase): void {
    const { body, files } = mapTest(test, this.config, this.multiProject);
    this.summary.add(body);
    const cid = randomUUID();
    this.live!.add(cid, body, artifactsOf(test, files, cid, this.opts.uploadArtifacts, this.skippedArtifacts));
  }

  private async end(result: FullResult): Promise<{ status?: FullResult['status'] } | undefined> {
    // Tests whose retry never came (maxFailures, interruption) are reported with what they have.
    for (const test of this.awaitingRetry) if (test.results.length) this.record(test);
    this.awaitingRetry.clear();

    let forgiven: string[] = [];
    // Decided once delivery caught up: the quarantine list arrives with the connection.
    const outcome = await this.live!.end(() => {
      forgiven = this.summary.forgiven(result, this.opts.quarantine);
      return { ...this.summary.finish(result, forgiven.length > 0), ...this.shard };
    }, this.runCid);
    if (this.live!.mode === 'disabled') return undefined;

    const skipped = [...this.skippedArtifacts, ...outcome.refused];
    if (skipped.length) this.say(`${skipped.length} artifact(s) not uploaded (over the size cap, unsupported or refused): ${someOf(skipped, 3)}`);
    if (outcome.dropped.length) this.say(`the server refused ${outcome.dropped.join('; ')}`);
    if (outcome.delivered) {
      this.spool.remove();
      this.say(`${this.summary.line}${this.shardNote} — ${this.opts.url}/runs/${outcome.runId}`);
      if (this.opts.summary) await writeJobSummary(this.client!, outcome.runId, (line) => this.say(line));
    } else {
      this.spool.close();
      if (this.spool.usable || this.spoolExists()) {
        this.say(`${this.summary.line}; not delivered, spooled to ${this.spool.file} — send it later with: npx reporter upload ${this.spool.file}`);
      } else {
        this.say(`${this.summary.line}; not delivered and the spool could not be written`);
      }
    }
    if (forgiven.length) {
      this.say(`all ${forgiven.length} failure(s) are quarantined, run passes: ${someOf(forgiven, 5, '; ')}`);
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
}
