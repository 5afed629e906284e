import type { StatusCounts } from './statusCounts.js';

export interface AttemptResult {
  case_id: string;
  run_attempt: number;
  status: string;
}

/**
 * The results that count in a run whose CI build was re-run (issue 12): per test case only those of
 * the latest attempt that ran it, and a case that failed in an earlier attempt and passed in its
 * latest one reads `flaky` (same commit, different outcome). Results of one attempt all count, as
 * in any run (repeat-each results are each counted). Order is kept.
 */
export function countingResults<R extends AttemptResult>(rows: R[]): (R & { effectiveStatus: string })[] {
  const out: (R & { effectiveStatus: string })[] = [];
  eachCountingResult(rows, (r, effectiveStatus) => out.push({ ...r, effectiveStatus }));
  return out;
}

/**
 * countingResults without a copy of each row: `each` gets the counting rows in order with their
 * effective status. What counts a whole re-run uses it: the copies of 100,000 rows were most of
 * the run page's JavaScript, and their garbage more.
 */
export function eachCountingResult<R extends AttemptResult>(rows: R[], each: (row: R, effectiveStatus: string) => void): void {
  const latest = new Map<string, number>();
  const firstFailure = new Map<string, number>();
  for (const r of rows) {
    const l = latest.get(r.case_id);
    if (l === undefined || r.run_attempt > l) latest.set(r.case_id, r.run_attempt);
    if (r.status === 'failed') {
      const f = firstFailure.get(r.case_id);
      if (f === undefined || r.run_attempt < f) firstFailure.set(r.case_id, r.run_attempt);
    }
  }
  for (const r of rows) {
    if (r.run_attempt !== latest.get(r.case_id)) continue;
    each(r, r.status === 'passed' && (firstFailure.get(r.case_id) ?? Infinity) < r.run_attempt ? 'flaky' : r.status);
  }
}

export function countLatestAttempts(rows: AttemptResult[]): StatusCounts {
  const out: StatusCounts = { total: 0, passed: 0, failed: 0, skipped: 0, flaky: 0 };
  eachCountingResult(rows, (_, s) => {
    out.total++;
    if (s === 'passed' || s === 'failed' || s === 'skipped' || s === 'flaky') out[s]++;
  });
  return out;
}
