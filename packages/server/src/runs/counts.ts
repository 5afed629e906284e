import type { RunUpdate } from '@testreport/contract';
import { ValidationError } from '../lib/errors.js';
import { resolveCounts } from './present.js';
import type { RunRow } from './repo.js';
import type { StatusCounts } from './statusCounts.js';

const PARTS = ['passedTests', 'failedTests', 'skippedTests', 'flakyTests'] as const;

type Counts = Record<'totalTests' | (typeof PARTS)[number], number>;

/**
 * Refuses a PATCH whose counts would not add up once applied: each part and their sum must not
 * exceed totalTests (a test is passed, failed, skipped or flaky, so a passRate above 100 is a
 * client bug). `after` is the row as the PATCH leaves it; unset columns are still derived from the
 * stored tests. The error names a field of the PATCH whenever it can.
 */
export function checkCounts(after: RunRow, derived: StatusCounts, patch: RunUpdate) {
  checkAddUp(resolveCounts(after, derived), patch);
}

/** The rule of checkCounts on counts already resolved (a CI build's shard keeps its own, runs/ciBuild.ts). */
export function checkAddUp(c: Counts, patch: RunUpdate) {
  for (const part of PARTS) {
    if (c[part] > c.totalTests) {
      const field = patch[part] !== undefined || patch.totalTests === undefined ? part : 'totalTests';
      throw new ValidationError(field, 'out_of_range', `${field}: ${part} (${c[part]}) cannot exceed totalTests (${c.totalTests})`);
    }
  }
  const sum = PARTS.reduce((n, p) => n + c[p], 0);
  if (sum > c.totalTests) {
    const field = patch.totalTests !== undefined ? 'totalTests' : (PARTS.findLast((p) => patch[p] !== undefined) ?? 'totalTests');
    throw new ValidationError(field, 'out_of_range', `${field}: passed + failed + skipped + flaky (${sum}) cannot exceed totalTests (${c.totalTests})`);
  }
}
