import { createHash } from 'node:crypto';
import type { RunCreate, RunUpdate } from '@testreport/contract';
import type { Deps } from '../deps.js';
import { ConflictError, ValidationError } from '../lib/errors.js';
import { checkAddUp } from './counts.js';
import type { RunRepo, RunRow } from './repo.js';
import { ENDED_SHARD, latestAttempts, type ShardRepo, type ShardRow } from './shardRepo.js';

/** Why a run finished (contract FINISH_REASONS). */
export type FinishReason = 'shards' | 'timeout' | 'complete' | 'cancel' | 'status';

/**
 * The key of a CI build's run: ciBuildId and group hashed, so a 2,000-character build id still fits
 * a unique index on PostgreSQL, and the NUL separator keeps ("a", "b c") apart from ("a b", "c").
 */
export const buildKeyOf = (ciBuildId: string, group: string | undefined) =>
  createHash('sha256').update(`${ciBuildId}\u0000${group ?? ''}`).digest('hex');

/**
 * The build's duration: shards run in parallel, so it is the longest duration a counting attempt
 * reported (a wall-clock span would include the wait before a re-run). Null when none reported one.
 */
function longestShard(latest: ShardRow[]): number | null {
  const reported = latest.map((s) => s.duration).filter((d): d is number => d !== null);
  return reported.length ? Math.max(...reported) : null;
}

/** A shard's reported counts must add up like a run's (runs/counts.ts): no part, nor their sum, above totalTests. */
function checkShardCounts(shard: ShardRow, patch: RunUpdate) {
  const total = patch.totalTests ?? shard.total_tests;
  if (total === null) return;
  checkAddUp(
    {
      totalTests: total,
      passedTests: patch.passedTests ?? shard.passed_tests ?? 0,
      failedTests: patch.failedTests ?? shard.failed_tests ?? 0,
      skippedTests: patch.skippedTests ?? shard.skipped_tests ?? 0,
      flakyTests: patch.flakyTests ?? shard.flaky_tests ?? 0,
    },
    patch,
  );
}

const shardRow = (runId: string, index: number, attempt: number, at: string): ShardRow => ({
  run_id: runId, shard_index: index, attempt, status: 'running',
  total_tests: null, passed_tests: null, failed_tests: null, skipped_tests: null, flaky_tests: null,
  duration: null, started_at: at, finished_at: null, last_activity_at: at,
});

/**
 * The rules of runs keyed by a CI build (issue 12, docs/ci-builds.md): shards join, attempts
 * supersede, each shard reports its own end, and the run finishes once all have. Every function
 * runs inside the caller's transaction with the run row locked (findForUpdate / findBuildForUpdate),
 * so two shards never both finish the run.
 */
export function createCiBuilds(
  deps: Deps,
  ctx: {
    runs: RunRepo;
    shards: ShardRepo;
    /** Failed tests of the run as readers see them (stored tests, latest attempt per case). */
    failedTestsOf(row: RunRow): Promise<number>;
    /**
     * Emits run.finished for the row as stored (webhooks and flakiness listen). `from`: the row whose
     * counts decided the status; the finished row's readers in this request take them from it.
     */
    announce(row: RunRow, from: RunRow): Promise<void>;
  },
) {
  const now = () => deps.config.now().toISOString();

  /** Finishes the run: status from the stored tests and the shards' own reports, then announced once. */
  async function finish(row: RunRow, reason: FinishReason, at: string): Promise<RunRow> {
    if (reason === 'cancel') await ctx.shards.endRunning(row.id, 'cancelled', at);
    else if (reason !== 'shards') await ctx.shards.endRunning(row.id, 'timed_out', at);
    const latest = [...latestAttempts(await ctx.shards.ofRun(row.id)).values()];
    let status: string;
    if (reason === 'cancel') status = 'cancelled';
    else {
      status = (await ctx.failedTestsOf(row)) > 0 || latest.some((s) => s.status === 'failed') ? 'failed' : 'passed';
    }
    const set = { status, finished_at: at, finish_reason: reason, finish_count: row.finish_count + 1, duration: longestShard(latest), updated_at: at };
    await ctx.runs.update(row.id, set);
    const updated = { ...row, ...set };
    await ctx.announce(updated, row);
    return updated;
  }

  /**
   * Sets a finished run running again (a late shard or a re-run joined); it finishes again later.
   * finish_reason stays stored (readers see null while running): it is the verdict on shards that
   * were given up, should the run finish again without them.
   */
  async function reopen(row: RunRow, at: string): Promise<RunRow> {
    const set = { status: 'running', finished_at: null, updated_at: at };
    await ctx.runs.update(row.id, set);
    return { ...row, ...set };
  }

  const allEnded = (row: RunRow, shards: ShardRow[]) => {
    const latest = latestAttempts(shards);
    for (let i = 1; i <= (row.shard_total ?? 1); i++) if (!ENDED_SHARD.has(latest.get(i)?.status ?? '')) return false;
    return true;
  };
  /**
   * Nothing left to wait for: every shard ended, or was given up by an earlier finish (timed out,
   * or never seen by a run that already finished once). A run reopened by a re-run of one shard
   * thus finishes again when that shard ends, not after another timeout.
   */
  const settled = (row: RunRow, shards: ShardRow[]) => {
    const latest = latestAttempts(shards);
    for (let i = 1; i <= (row.shard_total ?? 1); i++) {
      const s = latest.get(i);
      const givenUp = s ? s.status === 'timed_out' : row.finish_count > 0;
      if (!givenUp && !ENDED_SHARD.has(s?.status ?? '')) return false;
    }
    return true;
  };
  /** Why a settled run finishes: its shards, or the earlier verdict that gave the missing ones up. */
  const reasonOf = (row: RunRow, shards: ShardRow[]): FinishReason =>
    allEnded(row, shards) ? 'shards' : ((row.finish_reason ?? 'timeout') as FinishReason);

  /**
   * PATCH /runs/:id on a CI build's run. Counts and duration are the shard's; the run's counts come
   * from the stored tests. A finished status ends the shard; the run finishes when every shard's
   * latest attempt has ended, and a finished run whose late shard ends now finishes once more.
   */
  async function shardEnded(row: RunRow, patch: RunUpdate): Promise<RunRow> {
    const at = now();
    const index = patch.shardCurrent ?? 1;
    if (index > (row.shard_total ?? 1)) {
      throw new ValidationError('shardCurrent', 'out_of_range', `shardCurrent: this run has ${row.shard_total ?? 1} shard(s)`);
    }
    const shards = await ctx.shards.ofRun(row.id);
    const ofIndex = shards.filter((s) => s.shard_index === index);
    const attempt = patch.attempt ?? ofIndex.at(-1)?.attempt ?? 1;
    let shard = ofIndex.find((s) => s.attempt === attempt);
    if (!shard) {
      shard = shardRow(row.id, index, attempt, at);
      await ctx.shards.insert(shard);
      shards.push(shard);
    }
    checkShardCounts(shard, patch);
    const ends = patch.status !== undefined && patch.status !== 'running';
    const wasEnded = ENDED_SHARD.has(shard.status);
    const set = {
      last_activity_at: at,
      ...(patch.totalTests !== undefined ? { total_tests: patch.totalTests } : {}),
      ...(patch.passedTests !== undefined ? { passed_tests: patch.passedTests } : {}),
      ...(patch.failedTests !== undefined ? { failed_tests: patch.failedTests } : {}),
      ...(patch.skippedTests !== undefined ? { skipped_tests: patch.skippedTests } : {}),
      ...(patch.flakyTests !== undefined ? { flaky_tests: patch.flakyTests } : {}),
      ...(patch.duration !== undefined ? { duration: patch.duration } : {}),
      ...(ends ? { status: patch.status!, finished_at: at } : {}),
    };
    await ctx.shards.update(row.id, index, attempt, set);
    Object.assign(shard, set);
    await ctx.runs.update(row.id, { updated_at: at });
    row = { ...row, updated_at: at };
    if (!ends || wasEnded) return row;
    if (row.finished_at === null) return settled(row, shards) ? finish(row, reasonOf(row, shards), at) : row;
    // A cancelled run stays cancelled until a shard joins it again.
    if (row.status === 'cancelled') return row;
    // A late shard of a finished run: the run finishes again, with what it has now.
    return finish(row, reasonOf(row, shards), at);
  }

  return {
    finish,
    shardEnded,

    /**
     * POST /runs with a ciBuildId: creates the build's run or joins it, as shard `shardCurrent ?? 1`.
     * The attempt is the given one, else 1 for a new shard, the latest while it still runs (a retried
     * request), else latest + 1 (a retried CI job). Joining a finished run reopens it.
     */
    async join(fresh: RunRow, input: RunCreate & { ciBuildId: string }): Promise<{ row: RunRow; created: boolean; attempt: number }> {
      const at = now();
      const created = await ctx.runs.insertBuildRun(fresh);
      let row = (await ctx.runs.findBuildForUpdate(fresh.project_id, fresh.build_key!))!;
      const total = input.shardTotal ?? 1;
      if (!created && (row.shard_total ?? 1) !== total) {
        throw new ConflictError(`shardTotal: this CI build's run has ${row.shard_total ?? 1} shard(s), not ${total}`, { field: 'shardTotal', expected: row.shard_total ?? 1, got: total });
      }
      const index = input.shardCurrent ?? 1;
      const attempts = (await ctx.shards.ofRun(row.id)).filter((s) => s.shard_index === index);
      const latest = attempts.at(-1);
      const attempt = input.attempt ?? (!latest ? 1 : latest.status === 'running' ? latest.attempt : latest.attempt + 1);
      const existing = attempts.find((s) => s.attempt === attempt);
      let changed = false;
      if (!existing) {
        await ctx.shards.insert(shardRow(row.id, index, attempt, at));
        changed = true;
      } else if (existing.status === 'running') {
        await ctx.shards.update(row.id, index, attempt, { last_activity_at: at });
      } else {
        // The same attempt reporting again (e.g. a second `playwright test` in one CI job): running again.
        await ctx.shards.update(row.id, index, attempt, { status: 'running', finished_at: null, last_activity_at: at });
        changed = true;
      }
      if (attempt > row.current_attempt) {
        await ctx.runs.update(row.id, { current_attempt: attempt, updated_at: at });
        row = { ...row, current_attempt: attempt, updated_at: at };
      }
      if (changed && !created && row.finished_at !== null) row = await reopen(row, at);
      // A shard created already finished (an upload of a finished report) reports its end at once.
      if (input.status !== 'running') row = await shardEnded(row, { status: input.status, shardCurrent: index, attempt });
      return { row, created, attempt };
    },
  };
}
export type CiBuilds = ReturnType<typeof createCiBuilds>;
