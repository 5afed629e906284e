import type { FlakinessEntry, QuarantineEvent } from '@testreport/contract';
import { SETTINGS_DEFAULTS } from '@testreport/contract';
import type { Principal } from '../authz/principal.js';
import type { Deps } from '../deps.js';
import { NotFoundError } from '../lib/errors.js';
import { chunk } from '../db/batch.js';
import { afterCommit, inTransaction } from '../db/transaction.js';
import { lockForTransaction } from '../db/locks.js';
import { fromJson } from '../db/values.js';
import { createFlakinessRepo } from './repo.js';
import { scoreCase } from './score.js';
import { createQuarantineChanges, POLICY_ACTORS, type Actor } from './changes.js';
import { createQuarantineEventRepo, toQuarantineEvent } from './eventsRepo.js';
import { isBroken, quarantineReason, releasable, releaseReason } from './policy.js';

/** Cases recomputed per transaction (two statements), so a big recompute does not hold the database for long. */
const RECOMPUTE_CHUNK = 100;
const DAY_MS = 86_400_000;

const round4 = (n: number) => Math.round(n * 10_000) / 10_000;

/**
 * Flakiness stats live on test_cases and are recomputed lazily: storing a result marks its case
 * dirty; dirty cases are recomputed when a run finishes (that run's cases), before GET /flakiness
 * (that project's dirty cases) and before a test page shows its case. No request ever scans all results.
 *
 * A finish waits for the recompute only when a policy (auto-quarantine, auto-release) must decide on
 * the new scores. Otherwise the recompute runs after the finish has committed and answered: it took
 * 0.2–0.7 s for a 2,000-test run and 17 s for 200,000, time the reporter and `reporter upload` spent
 * waiting on the finishing PATCH (issue 18). Nothing is lost if the server stops first: the cases
 * stay dirty, and every reader of the stats recomputes dirty cases before it reads.
 */
export function createFlakinessService(deps: Deps) {
  const { db } = deps;
  const repo = createFlakinessRepo(db);
  const events = createQuarantineEventRepo(db);
  const change = createQuarantineChanges(deps);

  async function windowStart(projectId: string): Promise<string> {
    const days = (await repo.settings(projectId))?.data_retention_days ?? 30;
    return new Date(deps.config.now().getTime() - days * DAY_MS).toISOString();
  }

  async function recompute(projectId: string, caseIds: string[]) {
    if (caseIds.length === 0) return;
    const since = await windowStart(projectId);
    for (const [i, ids] of chunk(caseIds, RECOMPUTE_CHUNK).entries()) {
      // Between chunks the event loop turns once, so requests and the webhook worker waiting for the
      // connection get it: after the finish of a 50,000-test run (500 chunks) its run.completed
      // deliveries waited for the whole recompute, 5–50 s under load (issue 30).
      if (i > 0) await new Promise((resolve) => setImmediate(resolve));
      // One transaction per chunk: a result stored meanwhile marks its case dirty again after we commit.
      await db.transaction().execute(async (trx) => {
        // One recompute of a project at a time, across servers: a second one (GET /flakiness beside
        // a finish's) waits for this chunk and then finds its cases clean, instead of skipping
        // them as locked and reading the scores from before.
        await lockForTransaction(trx, `flakiness:${projectId}`);
        const txRepo = createFlakinessRepo(trx);
        const windows = await txRepo.windows(await txRepo.lockFree(ids), since);
        await txRepo.saveStats(new Map([...windows].map(([id, results]) => [id, scoreCase(results)])));
      });
    }
  }

  type Settings = NonNullable<Awaited<ReturnType<typeof repo.settings>>>;

  /**
   * The policies of docs/decisions.md §13 over the cases of a finished run, on their fresh scores. Each
   * change is a conditional UPDATE in a transaction (changes.ts): a second server deciding the same
   * at the same time writes nothing. Inside the finishing transaction each is a savepoint.
   */
  async function applyPolicies(runId: string, s: Settings) {
    const minRuns = s.auto_quarantine_min_runs;
    if (s.auto_quarantine_enabled === 1) {
      const candidates = await repo.quarantineCandidatesOfRun(runId, s.flakiness_threshold, minRuns);
      const last = await repo.lastOnBranch(candidates.map((c) => c.id), s.default_branch, minRuns);
      let n = 0;
      for (const c of candidates) {
        if (isBroken(last.get(c.id)!, minRuns)) continue;
        const reason = quarantineReason(c.flakiness_score, s.flakiness_threshold, c.total_runs);
        if (await inTransaction(db, () => change({ caseId: c.id, on: true, actor: POLICY_ACTORS.quarantine, reason, source: 'auto', isBroken: false }))) n++;
      }
      if (n > 0) deps.logger.info(`auto-quarantined ${n} test case(s) after run ${runId}`);
    }
    const passes = s.auto_release_after_passes;
    if (passes > 0) {
      const quarantined = await repo.quarantinedCasesOfRun(runId);
      const last = await repo.lastOnBranch(quarantined.map((c) => c.id), s.default_branch, passes);
      for (const c of quarantined) {
        if (!releasable(last.get(c.id)!, passes, c.quarantined_at)) continue;
        await inTransaction(db, () => change({ caseId: c.id, on: false, actor: POLICY_ACTORS.release, reason: releaseReason(passes, s.default_branch), source: 'auto', isBroken: false }));
      }
    }
  }

  /** A finished run's policy pass: its dirty cases recomputed first, so the pass reads their scores as of this run. */
  async function policyPass(projectId: string, runId: string, s: Settings) {
    await recompute(projectId, await repo.dirtyCasesOfRun(runId));
    await applyPolicies(runId, s);
  }

  deps.events.on('run.finished', async ({ run }) => {
    const settings = await repo.settings(run.projectId);
    if (!settings || (settings.auto_quarantine_enabled !== 1 && settings.auto_release_after_passes === 0)) {
      afterCommit(() => {
        repo
          .dirtyCasesOfRun(run.id)
          .then((ids) => recompute(run.projectId, ids))
          .catch((err) => deps.logger.error(`recomputing flakiness after run ${run.id} failed; its cases stay dirty`, err));
      });
      return;
    }
    await policyPass(run.projectId, run.id, settings);
  });

  /** Which of these cases are broken now (the flaky page and webhooks show it). */
  async function brokenOf(projectId: string, caseIds: string[]): Promise<Set<string>> {
    const s = await repo.settings(projectId);
    const minRuns = s?.auto_quarantine_min_runs ?? SETTINGS_DEFAULTS.autoQuarantineMinRuns;
    const last = await repo.lastOnBranch(caseIds, s?.default_branch ?? SETTINGS_DEFAULTS.defaultBranch, minRuns);
    return new Set(caseIds.filter((id) => isBroken(last.get(id)!, minRuns)));
  }

  async function actorOf(principal: Principal): Promise<Actor> {
    if (principal.kind === 'apiKey') return { type: 'apiKey', id: principal.keyId, name: principal.name };
    if (principal.kind === 'user') {
      const user = await db.selectFrom('users').select('name').where('id', '=', principal.userId).executeTakeFirst();
      return { type: 'user', id: principal.userId, name: user?.name || principal.email };
    }
    throw new Error('an anonymous caller cannot change a quarantine');
  }

  async function caseInProject(testId: string, projectId: string) {
    const found = await repo.caseOfTest(testId);
    if (!found || found.project_id !== projectId) throw new NotFoundError('Test');
    return found.case_id;
  }

  return {
    internal: {
      /** Brings the stats of these cases up to date if any is dirty (no principal: the caller authorizes). */
      async refresh(projectId: string, caseIds: string[]) {
        await recompute(projectId, caseIds);
      },
      /**
       * The policy pass of a finished run, as its finish runs it (and as two servers may run it at
       * once): the run's dirty cases are recomputed first. A finish without policies recomputes them
       * after its commit without waiting, so a pass right after it could read the scores of before.
       */
      async applyPolicies(projectId: string, runId: string) {
        const settings = await repo.settings(projectId);
        if (settings) await policyPass(projectId, runId, settings);
      },
      /** A case's quarantine changes, newest first (no principal: the caller authorizes). */
      async eventsOfCase(caseId: string) {
        return (await events.ofCase(caseId)).map(toQuarantineEvent);
      },
    },

    async list(principal: Principal, q: { projectId: string; minScore?: number; quarantined?: boolean; owner?: string; limit: number; offset: number }) {
      await deps.authz.project(principal, q.projectId, 'read', 'param');
      await recompute(q.projectId, await repo.dirtyCasesOfProject(q.projectId));
      const { rows, summary } = await repo.list(q);
      const broken = await brokenOf(q.projectId, rows.map((r) => r.id));
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
        isBroken: broken.has(r.id),
        owners: fromJson<string[]>(r.owners, []),
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

    /** Quarantines or releases the case of any of its results; a change writes one event (a repeat writes none). */
    async setQuarantine(principal: Principal, input: { testId: string; projectId: string; isQuarantined: boolean; reason?: string }) {
      await deps.authz.project(principal, input.projectId, 'quarantine', 'param');
      const caseId = await caseInProject(input.testId, input.projectId);
      const actor = await actorOf(principal);
      const reason = input.reason?.trim() || (input.isQuarantined ? 'quarantined by hand' : 'released by hand');
      await inTransaction(db, async () => {
        const broken = await brokenOf(input.projectId, [caseId]);
        await change({ caseId, on: input.isQuarantined, actor, reason, source: 'manual', isBroken: broken.has(caseId) });
      });
      return { testId: input.testId, isQuarantined: input.isQuarantined, updatedAt: deps.config.now().toISOString() };
    },

    /** GET /flakiness/:testId/events: the case's quarantine changes, newest first. */
    async events(principal: Principal, input: { testId: string; projectId: string }): Promise<{ data: QuarantineEvent[] }> {
      await deps.authz.project(principal, input.projectId, 'read', 'param');
      const caseId = await caseInProject(input.testId, input.projectId);
      return { data: (await events.ofCase(caseId)).map(toQuarantineEvent) };
    },
  };
}
