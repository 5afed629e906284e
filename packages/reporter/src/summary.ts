import type { FullResult } from '@playwright/test/reporter';
import type { TestReportClient } from '@testreport/client';
import type { RunUpdate } from '@testreport/contract';
import type { TestBody } from './delivery/records.js';

/** Counts, failures and the quarantine verdict of one run, and the lines that end the reporter's output. */
export class RunSummary {
  readonly counts = { total: 0, passed: 0, failed: 0, skipped: 0, flaky: 0 };
  private readonly failures: { key: string; fullTitle: string }[] = [];
  private quarantined = new Set<string>();
  globalErrors = 0;

  add(body: TestBody): void {
    this.counts.total++;
    this.counts[body.status]++;
    if (body.status === 'failed') this.failures.push({ key: `${body.filePath ?? ''}\n${body.fullTitle}`, fullTitle: body.fullTitle });
  }

  /** The project's quarantined tests; without the list nothing is forgiven, and the run is still reported. */
  async loadQuarantine(client: TestReportClient, projectId: string): Promise<void> {
    try {
      const list = await client.flakiness.list({ projectId, quarantined: 'true', limit: 500 });
      for (const q of list.data) if (q.isQuarantined) this.quarantined.add(`${q.filePath ?? ''}\n${q.fullTitle}`);
    } catch {
      // see above
    }
  }

  /** The failures forgiven by quarantine: all of them, or none when one is not quarantined. */
  forgiven(result: FullResult, quarantine: boolean): string[] {
    if (!quarantine || result.status !== 'failed' || this.globalErrors > 0) return [];
    if (!this.failures.length || !this.failures.every((f) => this.quarantined.has(f.key))) return [];
    return this.failures.map((f) => f.fullTitle);
  }

  finish(result: FullResult, forgiven: boolean): RunUpdate {
    const c = this.counts;
    return {
      status: forgiven || result.status === 'passed' ? 'passed' : result.status === 'interrupted' ? 'cancelled' : 'failed',
      totalTests: c.total,
      passedTests: c.passed,
      failedTests: c.failed,
      skippedTests: c.skipped,
      flakyTests: c.flaky,
      duration: Math.max(0, Math.round(result.duration)),
    };
  }

  get line(): string {
    const c = this.counts;
    return `${c.total} tests: ${c.passed} passed, ${c.failed} failed, ${c.flaky} flaky, ${c.skipped} skipped`;
  }
}

/** At most `max` names, then an ellipsis: one line however many there are. */
export const someOf = (names: readonly string[], max: number, sep = ', '): string =>
  `${names.slice(0, max).join(sep)}${names.length > max ? `${sep}…` : ''}`;
