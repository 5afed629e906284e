/** JSON columns: stored as text for portability, parsed on the way out. */
export const toJson = (value: unknown): string | null => (value === undefined || value === null ? null : JSON.stringify(value));
export function fromJson<T>(text: string | null | undefined, fallback: T): T {
  if (text === null || text === undefined || text === '') return fallback;
  return JSON.parse(text) as T;
}
export const bool = (v: number | boolean | null | undefined): boolean => v === 1 || v === true;
export const int = (v: boolean | undefined | null): number => (v ? 1 : 0);
