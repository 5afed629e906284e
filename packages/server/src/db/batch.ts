import { dialects } from './dialects/index.js';

/** The smallest per-statement bound-value limit of every dialect: statements sized by it run anywhere. */
export const MAX_BOUND_PARAMS = Math.min(...dialects.map((d) => d.maxBoundParams));

export { chunk, IN_LIST_CHUNK } from './chunk.js';

/** Rows of a multi-row insert that fit in one statement, with half the limit kept as margin. */
export function rowsPerStatement(valuesPerRow: number, cap = 500): number {
  return Math.max(1, Math.min(cap, Math.floor(MAX_BOUND_PARAMS / 2 / valuesPerRow)));
}
