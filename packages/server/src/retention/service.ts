import type { BackgroundJob, Deps } from '../deps.js';
import { runExclusive } from '../db/locks.js';
import { deleteRuns } from '../runs/service.js';

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
  /** Set by stop(): a sweep in progress finishes its current batch and leaves the rest for next time. */
  let stopping = false;

  /** One sweep, unless another server is sweeping right now (then nothing is deleted here). */
  async function sweepOnce(): Promise<{ deletedRuns: number }> {
    let result = { deletedRuns: 0 };
    await runExclusive(db, 'retention', async () => {
      result = await sweepAll();
    });
    return result;
  }

  async function sweepAll(): Promise<{ deletedRuns: number }> {
    const now = deps.config.now().getTime();
    const projects = await db.selectFrom('project_settings').select(['project_id', 'data_retention_days']).execute();
    let deletedRuns = 0;
    for (const p of projects) {
      const cutoff = new Date(now - p.data_retention_days * DAY_MS).toISOString();
      while (!stopping) {
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

  let timer: NodeJS.Timeout | null = null;
  let inFlight: Promise<unknown> | null = null;
  const tick = () => {
    if (inFlight) return; // the previous sweep is still going; the next tick catches up
    inFlight = sweepOnce()
      .catch((err) => deps.logger.error('retention sweep failed', err))
      .finally(() => {
        inFlight = null;
      });
  };

  const job: BackgroundJob = {
    start() {
      if (timer) return;
      stopping = false;
      tick();
      timer = setInterval(tick, HOUR_MS);
      timer.unref();
    },
    async stop() {
      stopping = true;
      if (timer) clearInterval(timer);
      timer = null;
      await inFlight;
    },
  };

  return { job, sweepOnce };
}
