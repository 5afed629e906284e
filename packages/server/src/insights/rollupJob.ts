import type { BackgroundJob, Deps } from '../deps.js';
import { runExclusive } from '../db/locks.js';
import { periodicJob } from '../lib/periodicJob.js';
import { PENDING_PER_FOLD, foldPending, foldProject } from './rollup.js';

/**
 * Often enough that a read adds up at most a few seconds of pending rows to the folded ones; a pass
 * with nothing pending is a handful of index lookups.
 */
const EVERY_MS = 15_000;

const yieldToRequests = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Folds the insights aggregates' pending rows into `insight_rollups` (insights/rollup.ts): at start
 * and every 15 s, up to 50,000 rows per short transaction, one server at a time (the others skip
 * their turn: a fold's read-modify-write of a histogram must not race another).
 */
export function createInsightRollupJob(deps: Deps) {
  const { db } = deps;

  /** One pass over every project; an aborted `signal` ends it between days. Returns the rows moved. */
  async function foldOnce(signal?: AbortSignal): Promise<{ moved: number }> {
    let moved = 0;
    await runExclusive(db, 'insights-rollup', async () => {
      // Another fold only after a full one: what arrived during a fold waits for the next tick
      // (reads add pending rows anyway). Chasing it folded a few batches at a time under steady
      // ingestion, each fold rewriting the rollups of their cases again (docs/insights.md).
      for (let n = PENDING_PER_FOLD; n === PENDING_PER_FOLD && !signal?.aborted; ) {
        n = await foldPending(db);
        moved += n;
        await yieldToRequests();
      }
      // What a rebuild staged (nearly always nothing: a lookup per project).
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
