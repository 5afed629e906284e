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
  const latest = new Map<string, number>();
  const firstFailure = new Map<string, number>();
  for (const r of rows) {
    latest.set(r.case_id, Math.max(latest.get(r.case_id) ?? 0, r.run_attempt));
    if (r.status === 'failed') firstFailure.set(r.case_id, Math.min(firstFailure.get(r.case_id) ?? Infinity, r.run_attempt));
  }
  return rows
    .filter((r) => r.run_attempt === latest.get(r.case_id))
    .map((r) => ({ ...r, effectiveStatus: r.status === 'passed' && (firstFailure.get(r.case_id) ?? Infinity) < r.run_attempt ? 'flaky' : r.status }));
}

export function countLatestAttempts(rows: AttemptResult[]): StatusCounts {
  const out: StatusCounts = { total: 0, passed: 0, failed: 0, skipped: 0, flaky: 0 };
  for (const r of countingResults(rows)) {
    out.total++;
    const s = r.effectiveStatus;
    if (s === 'passed' || s === 'failed' || s === 'skipped' || s === 'flaky') out[s]++;
  }
  return out;
}
