/** A run's tests by status, as derived from its stored results (runs/attempts.ts). */
export interface StatusCounts {
  total: number;
  passed: number;
  failed: number;
  skipped: number;
  flaky: number;
}
export const NO_TESTS: StatusCounts = { total: 0, passed: 0, failed: 0, skipped: 0, flaky: 0 };

/** The fields of `StatusCounts`, which are also the columns of `run_result_counts` (migration 030). */
export const STATUS_COUNT_FIELDS = ['total', 'passed', 'failed', 'skipped', 'flaky'] as const satisfies readonly (keyof StatusCounts)[];

/** The count columns of a run row; a PATCH may store them, and stored ones win over derived ones (runs/present.ts). */
export const COUNT_COLUMNS = ['total_tests', 'passed_tests', 'failed_tests', 'skipped_tests', 'flaky_tests'] as const;
