/** Ids per `IN (…)` list: far below every dialect's limit, and small enough to keep plans cheap. */
export const IN_LIST_CHUNK = 500;

/** `items` in lists of `size`. Apart from db/batch.ts so that dialect modules can use it (batch.ts imports them). */
export function chunk<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}
