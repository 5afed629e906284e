import type { ParsedTest } from '../report/types.js';

/** Run counts as PATCH /runs/:id takes them; flaky results count as flaky, not passed. */
export class Tally {
  totalTests = 0;
  passedTests = 0;
  failedTests = 0;
  skippedTests = 0;
  flakyTests = 0;
  durationSum = 0;

  add(t: ParsedTest): void {
    this.totalTests++;
    this.durationSum += t.duration;
    if (t.status === 'passed') this.passedTests++;
    else if (t.status === 'failed') this.failedTests++;
    else if (t.status === 'skipped') this.skippedTests++;
    else this.flakyTests++;
  }

  counts() {
    const { totalTests, passedTests, failedTests, skippedTests, flakyTests } = this;
    return { totalTests, passedTests, failedTests, skippedTests, flakyTests };
  }

  get status(): 'passed' | 'failed' {
    return this.failedTests > 0 ? 'failed' : 'passed';
  }
}
