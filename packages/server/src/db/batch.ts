import { dialects } from './dialects/index.js';

/** The smallest per-statement bound-value limit of every dialect: statements sized by it run anywhere. */
export const MAX_BOUND_PARAMS = Math.min(...dialects.map((d) => d.maxBoundParams));

/** Ids per `IN (…)` list: far below every dialect's limit, and small enough to keep plans cheap. */
export const IN_LIST_CHUNK = 500;

export function chunk<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/** Rows of a multi-row insert that fit in one statement, with half the limit kept as margin. */
export function rowsPerStatement(valuesPerRow: number, cap = 500): number {
  return Math.max(1, Math.min(cap, Math.floor(MAX_BOUND_PARAMS / 2 / valuesPerRow)));
}
