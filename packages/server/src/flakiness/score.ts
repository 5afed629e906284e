import { LIMITS } from '@testreport/contract';

export interface ScoredResult {
  runId: string;
  /** The CI attempt of the run the result was stored under (1 unless the build was re-run). */
  runAttempt?: number;
  status: string;
  isFlaky: boolean;
  commitSha: string | null;
  createdAt: string;
}
export interface CaseStats {
  totalRuns: number;
  flakyRuns: number;
  score: number;
  lastFlakyAt: string | null;
}

/** A case's results looked at: the newest 50 that were not skipped, inside the retention window. */
export const FLAKINESS_WINDOW = LIMITS.flakinessWindow;

/**
 * Decisions §7, over the case's newest non-skipped results (the caller leaves skipped ones out: a
 * skipped test says nothing about stability, so it neither counts as a run nor as flaky).
 *
 * A result counts as flaky when
 *  - its status is `flaky` or isFlaky is set: the framework saw it fail and then pass on a retry,
 *    so one result with retries is one flaky run (retries are not runs of their own); or
 *  - it is a pass or a fail on a commit where the case passed in one run and failed in another:
 *    the code was the same, so the difference is the test's. Every such result on that commit
 *    counts (e.g. pass in run 1 and fail in run 2 on commit abc → 2 flaky runs). A pass and a fail
 *    of the same run (repeat-each) do not make the commit mixed; a fail in one CI attempt of a run
 *    and a pass in a re-run attempt of it do (issue 12): two runs of the test on the same code.
 *
 * score = flakyRuns / totalRuns rounded to 4 decimals (0 when there is no result).
 */
export function scoreCase(results: ScoredResult[]): CaseStats {
  const byCommit = new Map<string, { passedRuns: Set<string>; failedRuns: Set<string> }>();
  for (const r of results) {
    if (!r.commitSha || (r.status !== 'passed' && r.status !== 'failed')) continue;
    const c = byCommit.get(r.commitSha) ?? { passedRuns: new Set(), failedRuns: new Set() };
    (r.status === 'passed' ? c.passedRuns : c.failedRuns).add(`${r.runId}#${r.runAttempt ?? 1}`);
    byCommit.set(r.commitSha, c);
  }
  const mixed = new Set<string>();
  for (const [sha, c] of byCommit) {
    if ([...c.passedRuns].some((p) => [...c.failedRuns].some((f) => f !== p))) mixed.add(sha);
  }
  let flakyRuns = 0;
  let lastFlakyAt: string | null = null;
  for (const r of results) {
    const flaky = r.status === 'flaky' || r.isFlaky || (r.commitSha !== null && mixed.has(r.commitSha) && (r.status === 'passed' || r.status === 'failed'));
    if (!flaky) continue;
    flakyRuns++;
    if (lastFlakyAt === null || r.createdAt > lastFlakyAt) lastFlakyAt = r.createdAt;
  }
  const totalRuns = results.length;
  return { totalRuns, flakyRuns, score: totalRuns ? Math.round((flakyRuns / totalRuns) * 10_000) / 10_000 : 0, lastFlakyAt };
}
