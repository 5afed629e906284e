import { z } from 'zod';
import { COMPARE_LIMITS } from './values.js';
import { id, queryInt, timestamp } from './common.js';
import { run, runCounts } from './runs.js';

/** How many tests each list of a comparison holds at most; `total` always counts all of them. */

/** `GET /runs/:id/compare?base=<runId>&limit=<n>`: `base` is any run of the same project, of any branch. */
export const runCompareQuery = z.object({
  base: id,
  limit: queryInt(1, COMPARE_LIMITS.listMax).default(COMPARE_LIMITS.listDefault),
});
export type RunCompareQuery = z.input<typeof runCompareQuery>;

/** A run as a comparison names it. */
export const comparedRun = run.pick({
  id: true, projectId: true, status: true, branch: true, commitSha: true, commitMessage: true, runTitle: true, passRate: true, duration: true, createdAt: true,
}).extend(runCounts);

/**
 * One test case in a comparison: its result in the run (`testId`, null when the case is absent from
 * it) and in the base run (`baseTestId`, null when absent there), with status and duration in each.
 */
export const comparedTest = z.object({
  testId: id.nullable(),
  baseTestId: id.nullable(),
  title: z.string(),
  fullTitle: z.string(),
  filePath: z.string().nullable(),
  status: z.string().nullable(),
  baseStatus: z.string().nullable(),
  /** Milliseconds; null when the case is absent from that run. */
  duration: z.number().nullable(),
  baseDuration: z.number().nullable(),
  /** The first non-empty line of the error of the run's result (of the base's for `removed`), or null. */
  error: z.string().nullable(),
});
export type ComparedTest = z.infer<typeof comparedTest>;

/** The first `limit` entries of a list and how many there are in all. */
export const comparedList = z.object({ total: z.number().int(), items: z.array(comparedTest) });

export const runComparison = z.object({
  run: comparedRun,
  base: comparedRun,
  /** Failing in the run, not failing in the base run (or absent from it). Suite order. */
  newFailures: comparedList,
  /** Failing in the base run, passed or flaky in the run. Suite order. */
  fixed: comparedList,
  /** Failing in both. Suite order. */
  stillFailing: comparedList,
  /** In the run, not in the base run. Suite order. */
  added: comparedList,
  /** In the base run, not in the run. Suite order. */
  removed: comparedList,
  /** Ran in both (not skipped) and took ≥ 20% and ≥ 100 ms longer in the run; biggest change first. */
  slower: comparedList,
  /** Ran in both (not skipped) and took ≥ 20% and ≥ 100 ms less in the run; biggest change first. */
  faster: comparedList,
});
export type RunComparisonResponse = z.infer<typeof runComparison>;
