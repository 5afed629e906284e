import { z } from 'zod';
import { SHARD_PLAN_MAX_TOTAL } from './values.js';
import { count, durationMs, queryInt } from './common.js';

/** Most shards one plan splits a suite into (Playwright's own --shard has no limit; CI matrices rarely pass 100). */

export const shardPlanQuery = z.object({
  total: queryInt(1, SHARD_PLAN_MAX_TOTAL),
});
export type ShardPlanQuery = z.input<typeof shardPlanQuery>;

export const plannedShard = z.object({
  /** 1-based, as Playwright's `--shard=<index>/<total>`. */
  index: z.number().int().min(1),
  /** Test files (relative to Playwright's rootDir, as stored) to pass to `playwright test`. */
  files: z.array(z.string()),
  /** Sum of the files' typical durations in ms. */
  expectedDuration: durationMs,
});

/**
 * The suite's files split into `total` groups of about equal duration, from the project's recent
 * finished runs. `basedOnRuns` 0 means no history: every shard is empty and callers fall back to
 * Playwright's own `--shard`.
 */
export const shardPlan = z.object({
  total: z.number().int().min(1),
  basedOnRuns: count,
  shards: z.array(plannedShard),
});
export type ShardPlan = z.infer<typeof shardPlan>;
export type PlannedShard = z.infer<typeof plannedShard>;
