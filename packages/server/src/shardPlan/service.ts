import type { ShardPlan } from '@testreport/contract';
import type { Principal } from '../authz/principal.js';
import type { Deps } from '../deps.js';
import { splitIntoShards, typicalDurations } from './plan.js';
import { createShardPlanRepo } from './repo.js';

/**
 * Runs the plan learns from. Enough for a median that ignores an odd run, few enough that a
 * renamed or deleted file drops out of the plan within a day of CI.
 */
export const PLAN_HISTORY_RUNS = 10;

/** Balanced shards (issue 12, item 6): the suite's files split by their recent durations. */
export function createShardPlanService(deps: Deps) {
  const repo = createShardPlanRepo(deps.db);
  return {
    async plan(principal: Principal, projectId: string, q: { total: number }): Promise<ShardPlan> {
      await deps.authz.project(principal, projectId, 'read', 'resource');
      const runs = await repo.recentRuns(projectId, PLAN_HISTORY_RUNS);
      const samples = await repo.fileSamples(runs);
      const basedOnRuns = new Set(samples.map((s) => s.runId)).size;
      return { total: q.total, basedOnRuns, shards: splitIntoShards(typicalDurations(samples), q.total) };
    },
  };
}
