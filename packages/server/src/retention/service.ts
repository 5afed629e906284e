import type { BackgroundJob, Deps } from '../deps.js';
import { runExclusive } from '../db/locks.js';
import { deleteRuns } from '../runs/service.js';
import { periodicJob } from '../lib/periodicJob.js';

const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;
/** Runs deleted per transaction: a sweep never holds the database for long, and yields between batches. */
const RUNS_PER_BATCH = 100;

const yieldToRequests = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Deletes runs older than their project's `dataRetentionDays` (by created_at against the injectable
 * clock), with their tests, suites, artifacts and files, exactly as DELETE /runs/:id does. Runs at
 * start and then hourly; with several servers on one database only one sweeps at a time (the
 * others skip their turn), so no two delete the same runs or files.
 */
export function createRetentionService(deps: Deps) {
  const { db } = deps;

  /**
   * One sweep, unless another server is sweeping right now (then nothing is deleted here). An
   * aborted `signal` (the server stopping) ends it after its current batch, leaving the rest for next time.
   */
  async function sweepOnce(signal?: AbortSignal): Promise<{ deletedRuns: number }> {
    let result = { deletedRuns: 0 };
    await runExclusive(db, 'retention', async () => {
      result = await sweepAll(signal);
    });
    return result;
  }

  async function sweepAll(signal?: AbortSignal): Promise<{ deletedRuns: number }> {
    const now = deps.config.now().getTime();
    const projects = await db.selectFrom('project_settings').select(['project_id', 'data_retention_days']).execute();
    let deletedRuns = 0;
    for (const p of projects) {
      const cutoff = new Date(now - p.data_retention_days * DAY_MS).toISOString();
      while (!signal?.aborted) {
        const old = await db
          .selectFrom('runs')
          .select(['id', 'project_id'])
          .where('project_id', '=', p.project_id)
          .where('created_at', '<', cutoff)
          .orderBy('created_at')
          .limit(RUNS_PER_BATCH)
          .execute();
        if (old.length === 0) break;
        await deleteRuns(deps, old.map((r) => ({ id: r.id, projectId: r.project_id })));
        deletedRuns += old.length;
        await yieldToRequests();
      }
    }
    if (deletedRuns > 0) deps.logger.info(`retention: deleted ${deletedRuns} run(s) past their project's retention window`);
    return { deletedRuns };
  }

  const job: BackgroundJob = periodicJob({
    everyMs: HOUR_MS,
    atStart: true,
    work: (signal) => sweepOnce(signal),
    onError: (err) => deps.logger.error('retention sweep failed', err),
  });

  return { job, sweepOnce };
}
