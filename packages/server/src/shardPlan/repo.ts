import type { Db } from '../db/database.js';
import type { FileSample } from './plan.js';

export function createShardPlanRepo(db: Db) {
  return {
    /** The newest finished runs of the project that completed (cancelled runs miss files), newest first. */
    async recentRuns(projectId: string, limit: number): Promise<string[]> {
      const rows = await db
        .selectFrom('runs')
        .select('id')
        .where('project_id', '=', projectId)
        .where('status', 'in', ['passed', 'failed'])
        .orderBy('id', 'desc')
        .limit(limit)
        .execute();
      return rows.map((r) => r.id);
    },

    /**
     * Per run and file, the summed duration of its tests in the run's latest attempt that ran the
     * file: a shard re-run stores the file's tests again under a new attempt, and they must not add up.
     */
    async fileSamples(runIds: string[]): Promise<FileSample[]> {
      if (runIds.length === 0) return [];
      const rows = await db
        .selectFrom('tests')
        .select((eb) => ['run_id', 'file_path', 'run_attempt', eb.fn.sum<number | string>('duration').as('total')])
        .where('run_id', 'in', runIds)
        .where('file_path', 'is not', null)
        .groupBy(['run_id', 'file_path', 'run_attempt'])
        .execute();
      const latest = new Map<string, { attempt: number; sample: FileSample }>();
      for (const r of rows) {
        const key = `${r.run_id}\n${r.file_path}`;
        const seen = latest.get(key);
        if (seen && seen.attempt >= r.run_attempt) continue;
        latest.set(key, { attempt: r.run_attempt, sample: { runId: r.run_id, filePath: r.file_path!, duration: Number(r.total) } });
      }
      return [...latest.values()].map((v) => v.sample);
    },
  };
}
