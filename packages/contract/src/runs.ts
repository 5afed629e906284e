import { z } from 'zod';
import { RUN_STATUSES } from './values.js';
import { count, durationMs, id, pageQuery, paged, successResponse, timestamp, LIMITS, truncate } from './common.js';

export const runStatus = z.enum(RUN_STATUSES);
export const runCreateStatus = z.enum(['running', 'passed', 'failed']);

const meta = z.string().max(10_000).transform((v) => truncate(v, LIMITS.titleChars * 4));
const shortMeta = z.string().max(2_000);
const stringList = z.array(z.string().min(1).max(LIMITS.nameChars)).max(100);

export const runCreate = z
  .object({
    projectId: id,
    status: runCreateStatus,
    branch: shortMeta.optional(),
    commitSha: z.string().max(100).optional(),
    commitMessage: meta.optional(),
    commitAuthor: shortMeta.optional(),
    ciProvider: z.string().max(100).optional(),
    ciBuildId: shortMeta.optional(),
    ciBuildUrl: shortMeta.optional(),
    frameworkVersion: z.string().max(100).optional(),
    workers: z.number().int().min(1).optional(),
    shardCurrent: z.number().int().min(1).optional(),
    shardTotal: z.number().int().min(1).optional(),
    /** With ciBuildId: the run is keyed by (project, ciBuildId, group); shards and jobs of one build join it. */
    group: z.string().min(1).max(LIMITS.nameChars).optional(),
    /** The CI attempt of this shard (GitHub GITHUB_RUN_ATTEMPT); omitted → derived by the server. */
    attempt: z.number().int().min(1).optional(),
    browser: z.string().max(200).optional(),
    os: z.string().max(200).optional(),
    viewport: z.string().regex(/^\d{1,5}x\d{1,5}$/, 'must be <width>x<height>').optional(),
    hostname: z.string().max(255).optional(),
    runTitle: meta.optional(),
    tags: stringList.optional(),
    grepPatterns: z.array(z.string().max(2_000)).max(100).optional(),
    /** The repository's CODEOWNERS text (docs/decisions.md §13): each test of the run gets the owners of its file. GitHub ignores files past 3 MB. */
    codeowners: z.string().max(3_000_000).optional(),
    /** Where the tests' file paths start, relative to the repository root (Playwright's rootDir, e.g. `e2e`); '' or absent = the root. */
    rootDirInRepo: z.string().max(1_000).optional(),
  })
  .superRefine((v, ctx) => {
    if (v.shardCurrent !== undefined && v.shardTotal === undefined) {
      ctx.addIssue({ code: 'custom', path: ['shardTotal'], message: 'required with shardCurrent', params: { reason: 'required' } });
    }
    if (v.shardCurrent !== undefined && v.shardTotal !== undefined && v.shardCurrent > v.shardTotal) {
      ctx.addIssue({ code: 'custom', path: ['shardCurrent'], message: 'must be ≤ shardTotal', params: { reason: 'out_of_range' } });
    }
  })
  // The refinement above in JSON Schema terms, for openapi.json; `≤` has no keyword, so it is said in words.
  .meta({ dependentRequired: { shardCurrent: ['shardTotal'] }, description: 'shardCurrent requires shardTotal and must be ≤ shardTotal.' });
export type RunCreate = z.input<typeof runCreate>;

const nullableString = z.string().nullable();
const nullableNumber = z.number().nullable();

/** A shard attempt's state; `timed_out` = the run finished (timeout or complete) before this attempt reported its end. */
export const SHARD_STATUSES = ['running', 'passed', 'failed', 'cancelled', 'timed_out'] as const;
export const shardStatus = z.enum(SHARD_STATUSES);
/** Why a run finished: all shards ended, the inactivity timeout, POST complete/cancel, or a status PATCH (ungrouped runs). */
export const FINISH_REASONS = ['shards', 'timeout', 'complete', 'cancel', 'status'] as const;
export const finishReason = z.enum(FINISH_REASONS);

export const runCounts = {
  totalTests: z.number().int(),
  passedTests: z.number().int(),
  failedTests: z.number().int(),
  skippedTests: z.number().int(),
  flakyTests: z.number().int(),
};

export const run = z.object({
  id,
  projectId: id,
  status: runStatus,
  branch: nullableString,
  commitSha: nullableString,
  commitMessage: nullableString,
  commitAuthor: nullableString,
  ciProvider: nullableString,
  ciBuildId: nullableString,
  ciBuildUrl: nullableString,
  frameworkVersion: nullableString,
  workers: nullableNumber,
  shardCurrent: nullableNumber,
  shardTotal: nullableNumber,
  browser: nullableString,
  os: nullableString,
  viewport: nullableString,
  hostname: nullableString,
  runTitle: nullableString,
  tags: z.array(z.string()),
  grepPatterns: z.array(z.string()),
  ...runCounts,
  passRate: z.number(),
  duration: nullableNumber,
  /** The CI group (runs keyed by ciBuildId); null when none was given. */
  group: nullableString,
  /** Shards whose latest attempt finished, on a run of a CI build; null on an ungrouped run. */
  finishedShards: nullableNumber,
  finishReason: finishReason.nullable(),
  /** How many times the run has finished; > 1 means a late shard or a re-run reopened it. */
  finishCount: z.number().int(),
  createdAt: timestamp,
  updatedAt: timestamp,
});
export type Run = z.infer<typeof run>;

export const shard = z.object({
  index: z.number().int(),
  attempt: z.number().int(),
  status: shardStatus,
  ...runCounts,
  duration: nullableNumber,
  startedAt: timestamp,
  finishedAt: timestamp.nullable(),
  lastActivityAt: timestamp,
});
export type Shard = z.infer<typeof shard>;
export const shardList = z.object({ data: z.array(shard) });

/** The whole run, plus the joining shard's attempt (null on an ungrouped run). */
export const runCreated = run.extend({ attempt: nullableNumber });
export type RunCreated = z.infer<typeof runCreated>;

export const runListItem = run.pick({
  id: true, projectId: true, status: true, branch: true, commitSha: true, totalTests: true, passedTests: true,
  failedTests: true, skippedTests: true, flakyTests: true, passRate: true, duration: true, createdAt: true,
});
export type RunListItem = z.infer<typeof runListItem>;

export const runListQuery = z.object({
  projectId: id,
  status: runStatus.optional(),
  branch: z.string().max(2_000).optional(),
  /** The CI build's id as the reporter sent it (`ciBuildId`): finds the run(s) of one CI build. */
  ciBuildId: shortMeta.optional(),
  /** With ciBuildId: the group; empty = the run without a group. */
  group: z.string().max(200).optional(),
  ...pageQuery,
});
export type RunListQuery = z.input<typeof runListQuery>;
export const runList = paged(runListItem);

export const runUpdate = z.object({
  status: runStatus.optional(),
  totalTests: count.optional(),
  passedTests: count.optional(),
  failedTests: count.optional(),
  skippedTests: count.optional(),
  flakyTests: count.optional(),
  duration: durationMs.optional(),
  /** On a run of a CI build: which shard (default 1) and attempt (default its latest) reports its end. */
  shardCurrent: z.number().int().min(1).optional(),
  attempt: z.number().int().min(1).optional(),
}).meta({ description: 'Counts must add up once applied: no part, nor passed + failed + skipped + flaky, above totalTests (400 naming the field otherwise).' });
export type RunUpdate = z.input<typeof runUpdate>;

/** PATCH answers the whole run as it is after the change (docs/api.md). */
export const runUpdated = run;

export const runDeleted = successResponse;
