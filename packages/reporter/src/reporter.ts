import type { FullConfig, FullResult, Reporter, Suite, TestCase, TestError, TestResult } from '@playwright/test/reporter';
import { detectCiAsync } from './ci.js';
import { resolveOptions, type ReporterOptions, type ResolvedOptions } from './options.js';
import { say } from './say.js';
import type { ReportSession } from './session.js';

/**
 * The module Playwright loads, kept small: it needs only Node's own modules, so loading it costs
 * Playwright next to nothing before `onBegin`. The SDK, its HTTP client, the contract's schemas
 * and the delivery (session.ts) are imported in the background once the first test has begun,
 * while git is asked for the commit (ci.ts `detectCiAsync`): at `onBegin` Playwright is still
 * starting its workers, and loading there put the first test about 50 ms later (docs/benchmarks.md).
 * Tests that end before both are done wait here, in order, until the session takes them. `onEnd`
 * starts the session if no test began and waits for it, so nothing is lost, and the guarantees are
 * the session's (a journal before every send, one warning when the server is down, the exit code
 * left alone but for the quarantine rule).
 */
export class TestReportReporter implements Reporter {
  private readonly opts: ResolvedOptions;
  private session: Promise<ReportSession | undefined> | undefined;
  /** Lets `session` start loading (see `startSession`); undefined once called. */
  private start: (() => void) | undefined;
  private loaded: ReportSession | undefined;
  /** Tests that ended before the session was loaded, handed to it in order once it is. */
  private early: [TestCase, TestResult][] = [];
  private earlyErrors: TestError[] = [];

  constructor(options: ReporterOptions = {}) {
    this.opts = resolveOptions(options);
  }

  printsToStdio(): boolean {
    return false;
  }

  onBegin(config: FullConfig, suite: Suite): void {
    if (!this.opts.enabled) return;
    const begun = new Promise<void>((resolve) => (this.start = resolve));
    // git runs beside the import, not on Playwright's main thread, which dispatches tests to the
    // workers meanwhile: `git log` can take long in a large repository (docs/reporter.md).
    this.session = begun.then(() => Promise.all([import('./session.js'), detectCiAsync().catch(() => ({}))])).then(
      ([{ ReportSession }, ciMeta]) => {
        const session = new ReportSession(this.opts, ciMeta);
        session.onBegin(config, suite);
        for (const e of this.earlyErrors) session.onError(e);
        for (const [test, result] of this.early) session.onTestEnd(test, result);
        this.early = [];
        this.earlyErrors = [];
        this.loaded = session;
        return session;
      },
      (e: unknown) => {
        // A broken installation: the run goes on unreported, as with any other reason to disable.
        say(`reporting disabled: could not load the reporter (${(e as Error)?.message ?? String(e)})`);
        this.early = [];
        return undefined;
      },
    );
  }

  onTestBegin(_test: TestCase, _result: TestResult): void {
    this.startSession();
  }

  onTestEnd(test: TestCase, result: TestResult): void {
    this.startSession();
    if (this.loaded) this.loaded.onTestEnd(test, result);
    else if (this.session) this.early.push([test, result]);
  }

  onError(error: TestError): void {
    this.startSession();
    if (this.loaded) this.loaded.onError(error);
    else this.earlyErrors.push(error);
  }

  async onEnd(result: FullResult): Promise<{ status?: FullResult['status'] } | undefined> {
    this.startSession();
    const session = await this.session;
    return session?.onEnd(result);
  }

  /** Loads the session once: at the first test's begin, or whatever Playwright calls first after `onBegin`. */
  private startSession(): void {
    this.start?.();
    this.start = undefined;
  }
}
