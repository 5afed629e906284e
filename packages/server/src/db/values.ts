/**
 * The portable representations every dialect stores (`DialectSupport.columnTypes`): JSON as text,
 * booleans as 0/1 integers, timestamps as ISO-8601 UTC text (so they sort as text and compare with
 * `<`/`>=` on SQLite and PostgreSQL alike). Repositories convert through these, never per dialect.
 */
export const toJson = (value: unknown): string | null => (value === undefined || value === null ? null : JSON.stringify(value));
export function fromJson<T>(text: string | null | undefined, fallback: T): T {
  if (text === null || text === undefined || text === '') return fallback;
  return JSON.parse(text) as T;
}
export const bool = (v: number | boolean | null | undefined): boolean => v === 1 || v === true;
export const int = (v: boolean | undefined | null): number => (v ? 1 : 0);
export const toDbTime = (d: Date): string => d.toISOString();
