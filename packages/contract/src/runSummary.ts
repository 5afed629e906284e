import { z } from 'zod';
import { SUMMARY_LIMITS } from './values.js';
import { id, queryInt, timestamp } from './common.js';
import { run, runCounts } from './runs.js';

/** How many tests each list of a run summary holds at most; `total` always counts all of them. */

/** `GET /runs/:id/summary?base=<branch>&limit=<n>`: `base` defaults to the project's default branch. */
export const runSummaryQuery = z.object({
  base: z.string().min(1).max(2_000).optional(),
  limit: queryInt(1, SUMMARY_LIMITS.listMax).default(SUMMARY_LIMITS.listDefault),
});
export type RunSummaryQuery = z.input<typeof runSummaryQuery>;

/** One test as a summary lists it: enough to name it, say why it failed, and link to its page. */
export const summaryTest = z.object({
  /** The result's id: the dashboard page is `url`, the API resource `GET /tests/:testId`. */
  testId: id,
  title: z.string(),
  fullTitle: z.string(),
  filePath: z.string().nullable(),
  status: z.string(),
  /** The first non-empty line of the error, without terminal colours (null when it passed or had none). */
  error: z.string().nullable(),
  /** A failure whose error (its fingerprint, docs/insights.md) occurred first in this run. */
  newError: z.boolean(),
  /** For a failure whose error occurred before: where it was first seen and in how many runs it occurred; else null. */
  errorFirstSeen: z.object({ runId: id, commitSha: z.string().nullable(), branch: z.string().nullable(), at: timestamp, runs: z.number().int() }).nullable(),
  /** The test case is quarantined in the project now. */
  quarantined: z.boolean(),
  /** CODEOWNERS owners of its file (docs/decisions.md §13): who to tell about a new failure. */
  owners: z.array(z.string()),
  /** {app_url}/tests/:testId */
  url: z.string(),
});
export type SummaryTest = z.infer<typeof summaryTest>;

/** The first `limit` entries of a list, in suite order (file, then full title), and how many there are in all. */
export const summaryList = z.object({ total: z.number().int(), items: z.array(summaryTest) });
export type SummaryList = z.infer<typeof summaryList>;

export const runSummary = z.object({
  run: run.pick({
    id: true, projectId: true, status: true, branch: true, commitSha: true, commitMessage: true, ciProvider: true, ciBuildId: true,
    ciBuildUrl: true, runTitle: true, passRate: true, duration: true, createdAt: true,
  }).extend({ ...runCounts, url: z.string() }),
  /** The branch compared with, and the run it was compared with: the newest finished run on it created before this one. */
  base: z.object({
    branch: z.string(),
    run: z.object({ id, status: z.string(), createdAt: timestamp, url: z.string() }).nullable(),
  }),
  /** Failing tests (the newest attempt of each), quarantined ones included and marked. */
  failed: summaryList,
  /** Failing now, not failing in the base run (or absent from it); empty when there is no base run. */
  newFailures: summaryList,
  /** Failing in the base run, passed or flaky now. */
  fixed: summaryList,
  /** Passed after a retry. */
  flaky: summaryList,
  /** Failing tests whose case is quarantined (they do not fail the run under the reporter's quarantine rule). */
  quarantinedFailures: summaryList,
});
export type RunSummaryResponse = z.infer<typeof runSummary>;
