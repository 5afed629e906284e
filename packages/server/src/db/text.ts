import { sql, type RawBuilder } from 'kysely';

/** `%text%` with LIKE's wildcards in `text` escaped; used with `escape '\'`, which SQLite and PostgreSQL both understand. */
export const likePattern = (text: string) => `%${text.replace(/[\\%_]/g, (m) => `\\${m}`)}%`;

/**
 * `column` contains `needle`, ignoring case, with `%`, `_` and `\` in the needle taken literally.
 * PostgreSQL's LIKE is case-sensitive and SQLite's is not (for ASCII); `lower(…) LIKE lower(…)`
 * with an explicit escape means the same on both, so repositories search through this.
 */
export function containsIgnoringCase(column: string, needle: string): RawBuilder<boolean> {
  const pattern = likePattern(needle);
  return sql<boolean>`lower(${sql.ref(column)}) like lower(${pattern}) escape '\\'`;
}
