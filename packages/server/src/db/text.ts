import { sql, type RawBuilder } from 'kysely';

/** `%text%` with LIKE's wildcards in `text` escaped; used with `escape '\'`, which SQLite and PostgreSQL both understand. */
export const likePattern = (text: string) => `%${text.replace(/[\\%_]/g, (m) => `\\${m}`)}%`;

/**
 * `column` contains `needle`, ignoring case, with `%`, `_` and `\` in the needle taken literally.
 * PostgreSQL's LIKE is case-sensitive and SQLite's is not (for ASCII); `lower(…) LIKE lower(…)`
 * with an explicit escape means the same on both, so repositories search through this.
 * `fold`: the dialect's `foldCase` for a column that compares by bytes on PostgreSQL (all but the
 * trigram-indexed ones, whose index is on plain `lower(column)`: db/migrations/029).
 */
export function containsIgnoringCase(column: string, needle: string, fold?: (column: string) => RawBuilder<string>): RawBuilder<boolean> {
  const pattern = likePattern(needle);
  const folded = fold ? fold(column) : sql`lower(${sql.ref(column)})`;
  return sql<boolean>`${folded} like lower(${pattern}) escape '\\'`;
}
