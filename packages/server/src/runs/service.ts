import type { Run, RunCreate, RunListItem, RunUpdate, Shard } from '@testreport/contract';
import { runPrefix } from '../artifacts/store.js';
import type { Principal } from '../authz/principal.js';
import { inTransaction } from '../db/transaction.js';
import type { Deps } from '../deps.js';
import { NotFoundError } from '../lib/errors.js';
import { newId } from '../lib/ids.js';
import { toJson } from '../db/values.js';
import { checkCounts } from './counts.js';
import { resolveCounts, toRun, toRunListItem, toShard } from './present.js';
import { createRunRepo, deleteRunsWithResults, type RunRow } from './repo.js';
import { NO_TESTS, type StatusCounts } from './statusCounts.js';
import { buildKeyOf, createCiBuilds } from './ciBuild.js';
import { createShardRepo, finishedShardCount, type ShardRow } from './shardRepo.js';

const FINISHED = new Set(['passed', 'failed', 'cancelled']);
const COUNT_FIELDS = ['totalTests', 'passedTests', 'failedTests', 'skippedTests', 'flakyTests'] as const;

/**
 * Removes runs with everything they own: rows in one transaction, then the artifact files. A file
 * store failure is logged and swallowed: the rows are gone, so the run is deleted for every reader,
 * and leftover files under the run's prefix are unreachable (no row names them).
 */
export async function deleteRuns(deps: Deps, runs: { id: string; projectId: string }[]): Promise<void> {
  if (runs.length === 0) return;
  await deps.db.transaction().execute((trx) => deleteRunsWithResults(trx, runs.map((r) => r.id)));
  for (const r of runs) {
    try {
      await deps.store.deletePrefix(runPrefix(r.projectId, r.id));
    } catch (err) {
      deps.logger.error(`deleting artifact files of run ${r.id} failed; rows are already gone`, err);
    }
  }
}

export function createRunService(deps: Deps) {
  const repo = createRunRepo(deps.db);
  const shards = createShardRepo(deps.db);
  const now = () => deps.config.now().toISOString();

  /**
   * Counts derived for a row object during this request. A finish derives a CI build's counts to
   * decide its status, then announces the run and answers with it: without this each derived them
   * again, a read of every result (of both attempts of a re-run: 3 × 150–300 ms for 50,000 tests).
   * Keyed by the row object, so it lives as long as the request holds the row.
   */
  const derivedOf = new WeakMap<RunRow, Promise<StatusCounts>>();
  const countsOf = (row: RunRow): Promise<StatusCounts> => {
    let counts = derivedOf.get(row);
    if (!counts) derivedOf.set(row, (counts = repo.derivedCounts(row)));
    return counts;
  };

  async function present(row: RunRow): Promise<Run> {
    const finished = row.build_key === null ? null : finishedShardCount(await shards.ofRun(row.id), row.shard_total ?? 1);
    return toRun(row, await countsOf(row), finished);
  }

  const ciBuilds = createCiBuilds(deps, {
    runs: repo,
    shards,
    // Count columns a PATCH stored (runs without a build id) win over the derived ones, as readers see them.
    failedTestsOf: async (row) => resolveCounts(row, await countsOf(row)).failedTests,
    announce: (row, from) => {
      // The stored tests are those the status was decided on; only status and timing columns changed.
      derivedOf.set(row, countsOf(from));
      return announceFinish(row);
    },
  });

  async function findReadable(principal: Principal, id: string, action: 'read' | 'report' | 'runs.delete'): Promise<RunRow> {
    const row = await repo.find(id);
    if (!row) throw new NotFoundError('Run');
    await deps.authz.project(principal, row.project_id, action, 'resource', 'run');
    return row;
  }

  /** Decisions §8: every finish is announced once, with the counts as a reader would see them. */
  async function announceFinish(row: RunRow) {
    await deps.events.emit('run.finished', { run: await present(row) });
  }

  async function finishNow(principal: Principal, id: string, reason: 'complete' | 'cancel'): Promise<Run> {
    await findReadable(principal, id, 'report');
    const row = await inTransaction(deps.db, async () => {
      const current = (await repo.findForUpdate(id))!;
      if (current.finished_at !== null) return current;
      return ciBuilds.finish(current, reason, now());
    });
    return present(row);
  }

  return {
    /** For other services, no principal (see docs/architecture.md). */
    internal: {
      /** Results were stored for these runs of CI builds: their running shards are alive. */
      async resultsArrived(runIds: string[]) {
        await shards.touchRunning(runIds, now());
      },
    },

    /** 201 with a new run; 200 when a shard of a CI build joined the build's existing run. */
    async create(principal: Principal, input: RunCreate): Promise<{ created: boolean; run: Run & { attempt: number | null } }> {
      await deps.authz.project(principal, input.projectId, 'report', 'param');
      const at = now();
      const row: RunRow = {
        id: newId(),
        project_id: input.projectId,
        status: input.status,
        branch: input.branch ?? null,
        commit_sha: input.commitSha ?? null,
        commit_message: input.commitMessage ?? null,
        commit_author: input.commitAuthor ?? null,
        ci_provider: input.ciProvider ?? null,
        ci_build_id: input.ciBuildId ?? null,
        ci_build_url: input.ciBuildUrl ?? null,
        framework_version: input.frameworkVersion ?? null,
        workers: input.workers ?? null,
        shard_current: input.shardCurrent ?? null,
        shard_total: input.shardTotal ?? null,
        browser: input.browser ?? null,
        os: input.os ?? null,
        viewport: input.viewport ?? null,
        hostname: input.hostname ?? null,
        run_title: input.runTitle ?? null,
        tags: toJson(input.tags ?? [])!,
        grep_patterns: toJson(input.grepPatterns ?? [])!,
        total_tests: null,
        passed_tests: null,
        failed_tests: null,
        skipped_tests: null,
        flaky_tests: null,
        duration: null,
        finished_at: FINISHED.has(input.status) ? at : null,
        created_at: at,
        updated_at: at,
        build_key: input.ciBuildId !== undefined ? buildKeyOf(input.ciBuildId, input.group) : null,
        ci_group: input.group ?? null,
        current_attempt: 1,
        finish_reason: FINISHED.has(input.status) ? 'status' : null,
        finish_count: FINISHED.has(input.status) ? 1 : 0,
        codeowners: input.codeowners?.trim() ? input.codeowners : null,
        root_dir_in_repo: input.rootDirInRepo?.trim() || null,
      };
      if (input.ciBuildId !== undefined) {
        const ciBuildId = input.ciBuildId;
        // Grouped runs keep their count columns unset (always derived) and finish by their shards.
        const fresh: RunRow = { ...row, status: 'running', finished_at: null, finish_reason: null, finish_count: 0, shard_total: input.shardTotal ?? 1, shard_current: input.shardCurrent ?? 1 };
        const joined = await inTransaction(deps.db, () => ciBuilds.join(fresh, { ...input, ciBuildId }));
        return { created: joined.created, run: { ...(await present(joined.row)), shardCurrent: input.shardCurrent ?? 1, attempt: joined.attempt } };
      }
      // A run created finished is announced in the same transaction: its deliveries commit with it.
      await inTransaction(deps.db, async () => {
        await repo.insert(row);
        if (row.finished_at) await announceFinish(row);
      });
      return { created: true, run: { ...(await present(row)), attempt: null } };
    },

    async list(principal: Principal, q: { projectId: string; status?: string; branch?: string; ciBuildId?: string; group?: string; limit: number; offset: number }) {
      await deps.authz.project(principal, q.projectId, 'read', 'param');
      const { rows, total } = await repo.list(q);
      // Only runs with a count still unset need their tests counted; finished runs were PATCHed.
      const needsCounting = rows.filter((r) => [r.total_tests, r.passed_tests, r.failed_tests, r.skipped_tests, r.flaky_tests].includes(null));
      const counts = await repo.statusCounts(needsCounting.map((r) => r.id));
      const data: RunListItem[] = rows.map((r) => toRunListItem(r, counts.get(r.id) ?? NO_TESTS));
      return { data, total, limit: q.limit, offset: q.offset };
    },

    /**
     * `derived`: the run's counts from its stored results, when the caller has just counted them
     * (the run page, from its file counts: overview.ts `suite`), so they are not counted again.
     * Counts a PATCH stored still win over them.
     */
    async get(principal: Principal, id: string, derived?: StatusCounts): Promise<Run> {
      const row = await findReadable(principal, id, 'read');
      if (derived) derivedOf.set(row, Promise.resolve(derived));
      return present(row);
    },

    async update(principal: Principal, id: string, patch: RunUpdate): Promise<Run> {
      const found = await findReadable(principal, id, 'report');
      if (found.build_key !== null) {
        const row = await inTransaction(deps.db, async () => ciBuilds.shardEnded((await repo.findForUpdate(id))!, patch));
        return present(row);
      }
      // Read, write and announce in one transaction: two concurrent PATCHes cannot both finish the
      // run, and the deliveries the finish queues commit with it (a crash loses neither, 15.5).
      const row = await inTransaction(deps.db, async () => {
        const current = (await repo.findForUpdate(id))!;
        const at = now();
        const set: Partial<RunRow> = { updated_at: at };
        if (patch.status !== undefined) set.status = patch.status;
        if (patch.totalTests !== undefined) set.total_tests = patch.totalTests;
        if (patch.passedTests !== undefined) set.passed_tests = patch.passedTests;
        if (patch.failedTests !== undefined) set.failed_tests = patch.failedTests;
        if (patch.skippedTests !== undefined) set.skipped_tests = patch.skippedTests;
        if (patch.flakyTests !== undefined) set.flaky_tests = patch.flakyTests;
        if (patch.duration !== undefined) set.duration = patch.duration;
        const finishes = current.status === 'running' && patch.status !== undefined && FINISHED.has(patch.status);
        if (finishes) Object.assign(set, { finished_at: at, finish_reason: 'status', finish_count: current.finish_count + 1 });
        const updated = { ...current, ...set } as RunRow;
        if (COUNT_FIELDS.some((f) => patch[f] !== undefined)) {
          const derived = await repo.derivedCounts(updated);
          checkCounts(updated, derived, patch);
        }
        await repo.update(id, set);
        if (finishes) await announceFinish(updated);
        return updated;
      });
      return present(row);
    },

    /** Every attempt of every shard (none for a run without a ciBuildId). */
    async shards(principal: Principal, id: string): Promise<{ data: Shard[] }> {
      const row = await findReadable(principal, id, 'read');
      return { data: (await shards.ofRun(row.id)).map(toShard) };
    },

    /** Finishes the run now from what is stored; a finished run is answered as it is (no second finish). */
    async complete(principal: Principal, id: string): Promise<Run> {
      return finishNow(principal, id, 'complete');
    },

    async cancel(principal: Principal, id: string): Promise<Run> {
      return finishNow(principal, id, 'cancel');
    },

    /** The inactivity sweep's step for one run: finishes it if it is still running and still idle. */
    async finishIfIdle(runId: string, idleSince: string): Promise<boolean> {
      return inTransaction(deps.db, async () => {
        const row = await repo.findForUpdate(runId);
        if (!row || row.finished_at !== null || row.build_key === null) return false;
        const last = lastActivity(await shards.ofRun(runId), row);
        if (last >= idleSince) return false;
        await ciBuilds.finish(row, 'timeout', now());
        return true;
      });
    },

    async delete(principal: Principal, id: string) {
      const row = await findReadable(principal, id, 'runs.delete');
      await deleteRuns(deps, [{ id: row.id, projectId: row.project_id }]);
      return { success: true, message: `Run ${id} and all its test results and artifacts were deleted` };
    },
  };
}
export type RunService = ReturnType<typeof createRunService>;


/** A build's last sign of life: its newest shard activity, or its creation when no shard has any. */
const lastActivity = (rows: ShardRow[], row: RunRow) => rows.reduce((m, s) => (s.last_activity_at > m ? s.last_activity_at : m), row.created_at);
