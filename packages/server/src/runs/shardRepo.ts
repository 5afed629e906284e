import type { Selectable, Updateable } from 'kysely';
import type { Db } from '../db/database.js';
import type { RunShardsTable } from '../db/schema.js';

export type ShardRow = Selectable<RunShardsTable>;
/** A shard attempt that has reported its end (timed_out is the server's verdict, not an end). */
export const ENDED_SHARD = new Set(['passed', 'failed', 'cancelled']);

/** The attempts of each shard, newest last: the latest attempt of a shard is the one that counts. */
export function latestAttempts(rows: ShardRow[]): Map<number, ShardRow> {
  const out = new Map<number, ShardRow>();
  for (const r of rows) {
    const seen = out.get(r.shard_index);
    if (!seen || r.attempt > seen.attempt) out.set(r.shard_index, r);
  }
  return out;
}

/** Shards 1..total whose latest attempt reported its end. */
export function finishedShardCount(rows: ShardRow[], total: number): number {
  let n = 0;
  for (const [index, r] of latestAttempts(rows)) if (index <= total && ENDED_SHARD.has(r.status)) n++;
  return n;
}

export function createShardRepo(db: Db) {
  return {
    async ofRun(runId: string): Promise<ShardRow[]> {
      return db.selectFrom('run_shards').selectAll().where('run_id', '=', runId).orderBy('shard_index').orderBy('attempt').execute();
    },

    async ofRuns(runIds: string[]): Promise<ShardRow[]> {
      if (runIds.length === 0) return [];
      return db.selectFrom('run_shards').selectAll().where('run_id', 'in', runIds).execute();
    },

    async insert(row: ShardRow) {
      await db.insertInto('run_shards').values(row).execute();
    },

    async update(runId: string, index: number, attempt: number, patch: Updateable<RunShardsTable>) {
      await db.updateTable('run_shards').set(patch).where('run_id', '=', runId).where('shard_index', '=', index).where('attempt', '=', attempt).execute();
    },

    /** Ends every attempt still running when the run finishes without them (timeout, complete, cancel). */
    async endRunning(runId: string, status: 'timed_out' | 'cancelled', at: string) {
      await db.updateTable('run_shards').set({ status, finished_at: at }).where('run_id', '=', runId).where('status', '=', 'running').execute();
    },

    /** Results arriving are activity of every attempt still running (results do not name their shard). */
    async touchRunning(runIds: string[], at: string) {
      if (runIds.length === 0) return;
      await db.updateTable('run_shards').set({ last_activity_at: at }).where('run_id', 'in', runIds).where('status', '=', 'running').execute();
    },

    /**
     * Running runs of CI builds with their project's timeout and their last shard activity: the
     * candidates of the inactivity sweep (few at any time; the index on runs(status, build_key) finds them).
     */
    async runningBuilds(): Promise<{ id: string; timeoutMinutes: number; lastActivityAt: string | null; createdAt: string }[]> {
      const rows = await db
        .selectFrom('runs')
        .innerJoin('project_settings', 'project_settings.project_id', 'runs.project_id')
        .leftJoin('run_shards', 'run_shards.run_id', 'runs.id')
        .select((eb) => [
          'runs.id as id',
          'runs.created_at as createdAt',
          'project_settings.shard_timeout_minutes as timeoutMinutes',
          eb.fn.max('run_shards.last_activity_at').as('lastActivityAt'),
        ])
        .where('runs.status', '=', 'running')
        .where('runs.build_key', 'is not', null)
        .groupBy(['runs.id', 'runs.created_at', 'project_settings.shard_timeout_minutes'])
        .execute();
      return rows.map((r) => ({ id: r.id, createdAt: r.createdAt, timeoutMinutes: Number(r.timeoutMinutes), lastActivityAt: (r.lastActivityAt as string | null) ?? null }));
    },
  };
}
export type ShardRepo = ReturnType<typeof createShardRepo>;
