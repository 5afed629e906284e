import type { BackgroundJob, Deps } from '../deps.js';
import { runExclusive } from '../db/locks.js';
import { periodicJob } from '../lib/periodicJob.js';
import type { RunService } from './service.js';
import { createShardRepo } from './shardRepo.js';

const MINUTE_MS = 60_000;

/**
 * Finishes runs of CI builds that went quiet: no shard joined, reported or sent results for the
 * project's `shardTimeoutMinutes` (default 30). Such a run finishes as "k of N shards" (finishReason
 * `timeout`), its still-running attempts become `timed_out`, and run.completed/run.failed fire as
 * for any finish. Checked every minute; with several servers on one database only one checks at a
 * time. `checkOnce` is the whole check, for tests (move `config.now` forward and call it).
 */
export function createShardTimeouts(deps: Deps, runs: RunService) {
  const shards = createShardRepo(deps.db);

  async function sweep(): Promise<{ finishedRuns: number }> {
    const now = deps.config.now().getTime();
    let finishedRuns = 0;
    for (const c of await shards.runningBuilds()) {
      const idleSince = new Date(now - c.timeoutMinutes * MINUTE_MS).toISOString();
      if ((c.lastActivityAt ?? c.createdAt) >= idleSince) continue;
      // Re-checked under the run's lock: a shard may have reported since the candidates were read.
      if (await runs.finishIfIdle(c.id, idleSince)) finishedRuns++;
    }
    if (finishedRuns > 0) deps.logger.info(`shard timeouts: finished ${finishedRuns} idle CI run(s)`);
    return { finishedRuns };
  }

  async function checkOnce(): Promise<{ finishedRuns: number }> {
    let result = { finishedRuns: 0 };
    await runExclusive(deps.db, 'shard-timeouts', async () => {
      result = await sweep();
    });
    return result;
  }

  const job: BackgroundJob = periodicJob({
    everyMs: MINUTE_MS,
    work: () => checkOnce(),
    onError: (err) => deps.logger.error('shard timeout check failed', err),
  });
  return { job, checkOnce };
}
