import type { Histogram } from './histogram.js';

export const COUNTERS = ['results', 'passed', 'failed', 'flaky', 'skipped'] as const;
type Counter = (typeof COUNTERS)[number];

/**
 * A (project, day, branch, test case)'s counts and durations: what a pending row of the insights
 * aggregates holds (insights/upkeep.ts), and what a fold adds up (insights/rollup.ts).
 */
export interface CaseDay extends Record<Counter, number> {
  project_id: string;
  day: string;
  branch: string;
  case_id: string;
  /** The newest result's id; '' when none was added (a result taken out). */
  latest_test_id: string;
  histogram: Histogram;
}

/** The same with its histogram packed (`insights/histogram.ts`): a pending or rollup row's form. */
export type PackedCaseDay = Omit<CaseDay, 'histogram'> & { histogram: Buffer };

export const emptyCaseDay = (project_id: string, day: string, branch: string, case_id: string): CaseDay => ({
  project_id, day, branch, case_id, results: 0, passed: 0, failed: 0, flaky: 0, skipped: 0, latest_test_id: '', histogram: new Map(),
});

/** Adds the counts of a row of any of the aggregate tables to `into`. */
export function addCounts(into: Record<Counter, number> & { latest_test_id: string }, from: Record<string, any>): void {
  for (const c of COUNTERS) into[c] += Number(from[c]);
  if (from.latest_test_id > into.latest_test_id) into.latest_test_id = from.latest_test_id;
}
