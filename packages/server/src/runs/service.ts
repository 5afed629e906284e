import type { Run, RunCreate, RunListItem, RunUpdate, Shard } from '@testreport/contract';
import { runPrefix } from '../artifacts/store.js';
import type { Principal } from '../authz/principal.js';
import { inTransaction } from '../db/transaction.js';
import type { Deps } from '../deps.js';
import { NotFoundError, NotImplementedError } from '../lib/errors.js';
import { newId } from '../lib/ids.js';
import { toJson } from '../db/values.js';
import { checkCounts } from './counts.js';
import { toRun, toRunListItem } from './present.js';
import { createRunRepo, deleteRunsWithResults, NO_TESTS, type RunRow } from './repo.js';

const FINISHED = new Set(['passed', 'failed', 'cancelled']);
const COUNT_FIELDS = ['totalTests', 'passedTests', 'failedTests', 'skippedTests', 'flakyTests'] as const;
const COUNT_COLUMNS = ['total_tests', 'passed_tests', 'failed_tests', 'skipped_tests', 'flaky_tests'] as const;

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
  const now = () => deps.config.now().toISOString();

  async function present(row: RunRow): Promise<Run> {
    const counts = await repo.statusCounts([row.id]);
    return toRun(row, counts.get(row.id)!);
  }

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

  return {
    async create(principal: Principal, input: RunCreate): Promise<Run & { attempt: number | null }> {
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
        build_key: null,
        ci_group: null,
        current_attempt: 1,
        finish_reason: FINISHED.has(input.status) ? 'status' : null,
        finish_count: FINISHED.has(input.status) ? 1 : 0,
      };
      // A run created finished is announced in the same transaction: its deliveries commit with it.
      await inTransaction(deps.db, async () => {
        await repo.insert(row);
        if (row.finished_at) await announceFinish(row);
      });
      return { ...(await present(row)), attempt: null };
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

    async get(principal: Principal, id: string): Promise<Run> {
      return present(await findReadable(principal, id, 'read'));
    },

    async update(principal: Principal, id: string, patch: RunUpdate): Promise<Run> {
      await findReadable(principal, id, 'report');
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
        if (finishes) set.finished_at = at;
        const updated = { ...current, ...set } as RunRow;
        if (COUNT_FIELDS.some((f) => patch[f] !== undefined)) {
          const derived = COUNT_COLUMNS.some((col) => updated[col] === null) ? (await repo.statusCounts([id])).get(id)! : NO_TESTS;
          checkCounts(updated, derived, patch);
        }
        await repo.update(id, set);
        if (finishes) await announceFinish(updated);
        return updated;
      });
      return present(row);
    },

    async shards(_principal: Principal, _id: string): Promise<{ data: Shard[] }> {
      throw new NotImplementedError('runs.shards');
    },
    async complete(_principal: Principal, _id: string): Promise<Run> {
      throw new NotImplementedError('runs.complete');
    },
    async cancel(_principal: Principal, _id: string): Promise<Run> {
      throw new NotImplementedError('runs.cancel');
    },

    async delete(principal: Principal, id: string) {
      const row = await findReadable(principal, id, 'runs.delete');
      await deleteRuns(deps, [{ id: row.id, projectId: row.project_id }]);
      return { success: true, message: `Run ${id} and all its test results and artifacts were deleted` };
    },
  };
}
export type RunService = ReturnType<typeof createRunService>;
