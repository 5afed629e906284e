import type { FlakinessEntry } from '@testreport/contract';
import type { Principal } from '../authz/principal.js';
import type { Deps } from '../deps.js';
import { NotFoundError } from '../lib/errors.js';
import { chunk } from '../db/batch.js';
import { afterCommit } from '../db/transaction.js';
import { createFlakinessRepo } from './repo.js';
import { scoreCase } from './score.js';

/** Auto-quarantine needs this many scored results before it trusts a score (docs/decisions.md §7). */
const AUTO_QUARANTINE_MIN_RUNS = 5;
/** Cases recomputed per transaction (two statements), so a big recompute does not hold the database for long. */
const RECOMPUTE_CHUNK = 100;
const DAY_MS = 86_400_000;

const round4 = (n: number) => Math.round(n * 10_000) / 10_000;

/**
 * Flakiness stats live on test_cases and are recomputed lazily: storing a result marks its case
 * dirty; dirty cases are recomputed when a run finishes (that run's cases), before GET /flakiness
 * (that project's dirty cases) and before a test page shows its case. No request ever scans all results.
 *
 * A finish waits for the recompute only when auto-quarantine must decide on the new scores. Otherwise
 * the recompute runs after the finish has committed and answered: it took 0.2–0.7 s for a 2,000-test
 * run and 17 s for 200,000, time the reporter and `reporter upload` spent waiting on the finishing
 * PATCH (issue 18). Nothing is lost if the server stops first: the cases stay dirty, and every reader
 * of the stats recomputes dirty cases before it reads.
 */
export function createFlakinessService(deps: Deps) {
  const { db } = deps;
  const repo = createFlakinessRepo(db);

  async function windowStart(projectId: string): Promise<string> {
    const days = (await repo.settings(projectId))?.data_retention_days ?? 30;
    return new Date(deps.config.now().getTime() - days * DAY_MS).toISOString();
  }

  async function recompute(projectId: string, caseIds: string[]) {
    if (caseIds.length === 0) return;
    const since = await windowStart(projectId);
    for (const ids of chunk(caseIds, RECOMPUTE_CHUNK)) {
      // One transaction per chunk: a result stored meanwhile marks its case dirty again after we commit.
      await db.transaction().execute(async (trx) => {
        const txRepo = createFlakinessRepo(trx);
        const windows = await txRepo.windows(ids, since);
        await txRepo.saveStats(new Map([...windows].map(([id, results]) => [id, scoreCase(results)])));
      });
    }
  }

  deps.events.on('run.finished', async ({ run }) => {
    const settings = await repo.settings(run.projectId);
    if (!settings || settings.auto_quarantine_enabled !== 1) {
      afterCommit(() => {
        repo
          .dirtyCasesOfRun(run.id)
          .then((ids) => recompute(run.projectId, ids))
          .catch((err) => deps.logger.error(`recomputing flakiness after run ${run.id} failed; its cases stay dirty`, err));
      });
      return;
    }
    await recompute(run.projectId, await repo.dirtyCasesOfRun(run.id));
    const n = await repo.quarantineFlakyCasesOfRun(run.id, settings.flakiness_threshold, AUTO_QUARANTINE_MIN_RUNS, deps.config.now().toISOString());
    if (n > 0) deps.logger.info(`auto-quarantined ${n} test case(s) after run ${run.id}`);
  });

  return {
    internal: {
      /** Brings the stats of these cases up to date if any is dirty (no principal: the caller authorizes). */
      async refresh(projectId: string, caseIds: string[]) {
        await recompute(projectId, caseIds);
      },
    },

    async list(principal: Principal, q: { projectId: string; minScore?: number; quarantined?: boolean; limit: number; offset: number }) {
      await deps.authz.project(principal, q.projectId, 'read', 'param');
      await recompute(q.projectId, await repo.dirtyCasesOfProject(q.projectId));
      const { rows, summary } = await repo.list(q);
      const data: FlakinessEntry[] = rows.map((r) => ({
        testId: r.latest_test_id!,
        caseId: r.id,
        testTitle: r.title,
        fullTitle: r.full_title,
        filePath: r.file_path || null,
        flakinessScore: r.flakiness_score,
        totalRuns: r.total_runs,
        flakyRuns: r.flaky_runs,
        lastFlakyAt: r.last_flaky_at,
        isQuarantined: r.is_quarantined === 1,
      }));
      return {
        data,
        summary: {
          totalFlakyTests: Number(summary.flaky ?? 0),
          quarantinedTests: Number(summary.quarantined ?? 0),
          averageFlakinessScore: round4(Number(summary.avg ?? 0)),
        },
        total: Number(summary.total),
        limit: q.limit,
        offset: q.offset,
      };
    },

    /** Quarantines or releases the case of any of its results. */
    async setQuarantine(principal: Principal, input: { testId: string; projectId: string; isQuarantined: boolean }) {
      await deps.authz.project(principal, input.projectId, 'quarantine', 'param');
      const found = await repo.caseOfTest(input.testId);
      if (!found || found.project_id !== input.projectId) throw new NotFoundError('Test');
      const at = deps.config.now().toISOString();
      await repo.setQuarantine(found.case_id, input.isQuarantined, at);
      return { testId: input.testId, isQuarantined: input.isQuarantined, updatedAt: at };
    },
  };
}
