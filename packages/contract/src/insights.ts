import { z } from 'zod';
import { INSIGHT_WINDOWS } from './values.js';
import { id, queryInt } from './common.js';
import { ownerQuery } from './tests.js';

/** The windows `GET /insights` answers for (docs/decisions.md §13). */

/** A duration regression: p50 in this window vs the window before, at least this much slower. */
export const REGRESSION_MIN_RATIO = 0.2;
export const REGRESSION_MIN_MS = 100;

export const insightsQuery = z.object({
  projectId: id,
  /** Days back from today (UTC), today included. */
  days: z.coerce
    .number({ message: 'one of 7, 30, 90' })
    .pipe(z.literal(INSIGHT_WINDOWS, { message: 'one of 7, 30, 90' }))
    .default(30),
  /** Only runs of this branch; every branch when left out. */
  branch: z.string().min(1).max(2_000).optional(),
  /** Only tests this CODEOWNERS owner owns (exact, as CODEOWNERS spells it). */
  owner: ownerQuery.optional(),
  /** Items per list (slowest, mostFailing, flakiest, regressions). */
  limit: queryInt(1, 100).default(20),
});
export type InsightsQuery = z.input<typeof insightsQuery>;

/** The test case an item is about, named by its latest result in the window. */
const insightTest = {
  /** The latest result of the case in the window (its page is `/tests/:id`). */
  testId: id,
  fullTitle: z.string(),
  filePath: z.string().nullable(),
  /** Results of the case in the window (retries of one run count once: the final outcome). */
  results: z.number().int(),
};

export const insightsTrendDay = z.object({
  /** UTC day, YYYY-MM-DD; every day of the window is listed, days without runs with runs 0. */
  date: z.string(),
  /** Runs created that day. */
  runs: z.number().int(),
  /** Passed results ÷ results of that day's runs, in percent with two decimals (as a run's passRate); null without results. */
  passRate: z.number().nullable(),
  /** Median wall time of that day's finished runs, in ms; null when none finished. */
  medianDuration: z.number().nullable(),
});

export const insights = z.object({
  days: z.number().int(),
  branch: z.string().nullable(),
  owner: z.string().nullable(),
  /** First and last UTC day of the window (YYYY-MM-DD). */
  from: z.string(),
  to: z.string(),
  trend: z.array(insightsTrendDay),
  /** Highest p50 duration first (passed, failed and flaky results; skipped ones left out). */
  slowest: z.array(z.object({ ...insightTest, p50: z.number(), p95: z.number() })),
  /** Highest failure rate first, then most failures; only cases that failed at least once. */
  mostFailing: z.array(z.object({ ...insightTest, failures: z.number().int(), failureRate: z.number() })),
  /** Highest flaky rate first (passed only on a retry); only cases flaky at least once. */
  flakiest: z.array(z.object({ ...insightTest, flaky: z.number().int(), flakyRate: z.number() })),
  /** Cases whose p50 grew by ≥ 20% and ≥ 100 ms against the window before, biggest growth first. */
  regressions: z.array(z.object({ ...insightTest, p50Before: z.number(), p50After: z.number(), change: z.number() })),
});
export type Insights = z.infer<typeof insights>;
