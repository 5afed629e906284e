import type { BackgroundJob, Deps } from '../deps.js';
import { runExclusive } from '../db/locks.js';
import { periodicJob } from '../lib/periodicJob.js';
import { foldProject } from './rollup.js';

/** Often enough that a read adds up at most a minute of the upkeep's rows to the rollups. */
const EVERY_MS = 60_000;

const yieldToRequests = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Folds the insights upkeep's rows into `insight_rollups` (insights/rollup.ts): at start and every
 * minute, each (project, day) with rows in its own short transaction, one server at a time (the
 * others skip their turn: a fold's read-modify-write of a histogram must not race another).
 */
export function createInsightRollupJob(deps: Deps) {
  const { db } = deps;

  /** One pass over every project; an aborted `signal` ends it between days. Returns the rows moved. */
  async function foldOnce(signal?: AbortSignal): Promise<{ moved: number }> {
    let moved = 0;
    await runExclusive(db, 'insights-rollup', async () => {
      const projects = await db.selectFrom('projects').select('id').execute();
      for (const p of projects) moved += await foldProject(db, p.id, { between: yieldToRequests, signal });
    });
    return { moved };
  }

  const job: BackgroundJob = periodicJob({
    everyMs: EVERY_MS,
    atStart: true,
    work: (signal) => foldOnce(signal),
    onError: (err) => deps.logger.error('folding the insights aggregates failed', err),
  });

  return { job, foldOnce };
}
