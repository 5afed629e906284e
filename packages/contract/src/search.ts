import { z } from 'zod';
import { id, pageQuery, paged, timestamp, timestampInput } from './common.js';
import { testStatus } from './tests.js';

/** The fields `GET /search` looks in: titles (title and full title), error messages, stdout and stderr. */
export const SEARCH_FIELDS = ['titles', 'errors', 'output'] as const;
export type SearchField = (typeof SEARCH_FIELDS)[number];
/**
 * Shortest text searched for: both indexes are made of trigrams (SQLite FTS5 `trigram`, PostgreSQL
 * `pg_trgm`), which cannot find anything shorter than three characters.
 */
export const SEARCH_MIN_CHARS = 3;

export const searchQuery = z.object({
  projectId: id,
  /** Text a field contains, case-insensitive, taken literally (no operators, no wildcards). */
  // NUL can be in no stored text (PostgreSQL refuses it in a string), so it is refused here, not met as a 500.
  q: z.string().trim().min(SEARCH_MIN_CHARS, `at least ${SEARCH_MIN_CHARS} characters`).max(200).regex(/^[^\u0000]*$/, 'no NUL characters'),
  /** Comma-separated fields to look in; all three when left out. */
  in: z
    .string()
    .optional()
    .transform((v, ctx) => {
      if (v === undefined) return [...SEARCH_FIELDS];
      const parts = [...new Set(v.split(',').map((p) => p.trim()))];
      const bad = parts.filter((p) => !(SEARCH_FIELDS as readonly string[]).includes(p));
      if (parts.length === 0 || bad.length > 0) {
        ctx.addIssue({ code: 'custom', message: `one or more of ${SEARCH_FIELDS.join(', ')}, comma-separated${bad.length ? ` (not ${bad.join(', ')})` : ''}` });
        return z.NEVER;
      }
      return parts as SearchField[];
    }),
  /** Results stored at or after this time. */
  since: timestampInput.optional(),
  branch: z.string().min(1).max(2_000).optional(),
  ...pageQuery,
});
export type SearchQuery = z.input<typeof searchQuery>;

/**
 * Where the text was found, as plain text with the matches as offsets (UTF-16 code units into `text`,
 * as JavaScript strings count): nothing in it is markup, so a client escapes `text` and wraps the
 * ranges itself (the dashboard uses `<mark>`).
 */
export const searchSnippet = z.object({
  in: z.enum(SEARCH_FIELDS),
  /** Up to ~200 characters around the first match; `…` marks where it was cut. */
  text: z.string(),
  highlights: z.array(z.object({ start: z.number().int(), end: z.number().int() })),
});
export type SearchSnippet = z.infer<typeof searchSnippet>;

export const searchHit = z.object({
  testId: id,
  runId: id,
  title: z.string(),
  fullTitle: z.string(),
  filePath: z.string().nullable(),
  status: testStatus,
  branch: z.string().nullable(),
  commitSha: z.string().nullable(),
  createdAt: timestamp,
  snippet: searchSnippet,
});
export type SearchHit = z.infer<typeof searchHit>;

/** Results with a match, newest first. */
export const searchResults = paged(searchHit);
export type SearchResults = z.infer<typeof searchResults>;
