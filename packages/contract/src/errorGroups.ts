import { z } from 'zod';
import { id, pageQuery, paged, timestamp, timestampInput } from './common.js';
import { ownerQuery } from './tests.js';

/** `GET /errors` and `GET /errors/:fingerprint` filters: each narrows the occurrences counted. */
const occurrenceFilters = {
  projectId: id,
  /** Occurrences stored at or after this time. */
  since: timestampInput.optional(),
  /** Occurrences stored before this time. */
  until: timestampInput.optional(),
  branch: z.string().min(1).max(2_000).optional(),
  /** Only occurrences in tests this CODEOWNERS owner owns (exact, as CODEOWNERS spells it). */
  owner: ownerQuery.optional(),
};

export const errorListQuery = z.object({
  ...occurrenceFilters,
  /** Text the error message contains (case-insensitive). */
  q: z.string().min(1).max(200).optional(),
  ...pageQuery,
});
export type ErrorListQuery = z.input<typeof errorListQuery>;

export const errorGroupQuery = z.object(occurrenceFilters);
export type ErrorGroupQuery = z.input<typeof errorGroupQuery>;

export const fingerprintParam = z.object({ fingerprint: z.string().regex(/^[0-9a-f]{16}$/, '16 lowercase hex characters') });

/** Where an error group's first (or last) occurrence was stored. */
export const errorSighting = z.object({ runId: id, testId: id, commitSha: z.string().nullable(), branch: z.string().nullable(), at: timestamp });

export const errorGroup = z.object({
  /** errorGroups/fingerprint.ts on the server: the normalised message and the file, hashed. */
  fingerprint: z.string(),
  /** The first line of the newest occurrence's message, without terminal colours. */
  message: z.string(),
  /** The file the error happened in (the test's file). */
  filePath: z.string().nullable(),
  occurrences: z.number().int(),
  /** Distinct test cases it hit. */
  tests: z.number().int(),
  runs: z.number().int(),
  firstSeen: errorSighting,
  lastSeen: errorSighting,
});
export type ErrorGroup = z.infer<typeof errorGroup>;

/** Groups with an occurrence matching the filters, the most recently seen first. */
export const errorGroupList = paged(errorGroup);

export const errorGroupDetail = errorGroup.extend({
  /** Occurrences per UTC day, from the first to the last day with one, days without any left out. */
  daily: z.array(z.object({ date: z.string(), occurrences: z.number().int() })),
  /** The test cases it hit, most occurrences first (at most 200). */
  testCases: z.array(z.object({ testId: id, fullTitle: z.string(), filePath: z.string().nullable(), occurrences: z.number().int(), lastRunId: id })),
});
export type ErrorGroupDetail = z.infer<typeof errorGroupDetail>;
