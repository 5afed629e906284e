import type { StatusCounts } from './repo.js';

export interface AttemptResult {
  case_id: string;
  run_attempt: number;
  status: string;
}

/**
 * Counts of a run whose CI build was re-run (issue 12): per test case only the results of the
 * latest attempt that ran it count, and a case that failed in an earlier attempt and passed in its
 * latest one counts as flaky (same commit, different outcome). Results of one attempt count as they
 * do in any run (repeat-each results are each counted).
 */
export function countLatestAttempts(rows: AttemptResult[]): StatusCounts {
  const latest = new Map<string, number>();
  const failedBefore = new Map<string, number[]>();
  for (const r of rows) {
    latest.set(r.case_id, Math.max(latest.get(r.case_id) ?? 0, r.run_attempt));
    if (r.status === 'failed') failedBefore.set(r.case_id, [...(failedBefore.get(r.case_id) ?? []), r.run_attempt]);
  }
  const out: StatusCounts = { total: 0, passed: 0, failed: 0, skipped: 0, flaky: 0 };
  for (const r of rows) {
    if (r.run_attempt !== latest.get(r.case_id)) continue;
    out.total++;
    const healed = r.status === 'passed' && (failedBefore.get(r.case_id) ?? []).some((a) => a < r.run_attempt);
    if (healed) out.flaky++;
    else if (r.status === 'passed' || r.status === 'failed' || r.status === 'skipped' || r.status === 'flaky') out[r.status]++;
  }
  return out;
}
