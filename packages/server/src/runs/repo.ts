import type { Selectable, Updateable } from 'kysely';
import { chunk, IN_LIST_CHUNK } from '../db/batch.js';
import type { Db } from '../db/database.js';
import type { RunsTable } from '../db/schema.js';
import { countLatestAttempts } from './attempts.js';
import { COUNT_COLUMNS, NO_TESTS, STATUS_COUNT_FIELDS, type StatusCounts } from './statusCounts.js';
import { uncountRuns } from '../insights/upkeep.js';
import { failuresOfRuns, uncountFailures } from '../errorGroups/upkeep.js';

export type RunRow = Selectable<RunsTable>;

export function createRunRepo(db: Db) {
  return {
    async insert(row: RunRow) {
      await db.insertInto('runs').values(row).execute();
    },

    /**
     * Inserts the run of a CI build unless its (project, build_key) exists: ON CONFLICT DO NOTHING
     * on the unique index, so concurrent shards never both create (a loser waits for the winner's
     * commit on PostgreSQL, then inserts nothing). True when this call created it.
     */
    async insertBuildRun(row: RunRow): Promise<boolean> {
      const r = await db.insertInto('runs').values(row).onConflict((oc) => oc.columns(['project_id', 'build_key']).doNothing()).returning('id').executeTakeFirst();
      return r !== undefined;
    },

    async findBuildForUpdate(projectId: string, buildKey: string): Promise<RunRow | undefined> {
      return db.selectFrom('runs').selectAll().where('project_id', '=', projectId).where('build_key', '=', buildKey).forUpdate().executeTakeFirst();
    },

    async find(id: string): Promise<RunRow | undefined> {
      return db.selectFrom('runs').selectAll().where('id', '=', id).executeTakeFirst();
    },

    /** The run, locked against concurrent writers until the caller's transaction ends. */
    async findForUpdate(id: string): Promise<RunRow | undefined> {
      return db.selectFrom('runs').selectAll().where('id', '=', id).forUpdate().executeTakeFirst();
    },

    async list(q: { projectId: string; status?: string; branch?: string; ciBuildId?: string; group?: string; limit: number; offset: number }) {
      let base = db.selectFrom('runs').where('project_id', '=', q.projectId);
      if (q.status) base = base.where('status', '=', q.status);
      if (q.branch !== undefined) base = base.where('branch', '=', q.branch);
      if (q.ciBuildId !== undefined) base = base.where('ci_build_id', '=', q.ciBuildId);
      if (q.group !== undefined) base = q.group === '' ? base.where('ci_group', 'is', null) : base.where('ci_group', '=', q.group);
      const [rows, total] = await Promise.all([
        base.selectAll().orderBy('id', 'desc').limit(q.limit).offset(q.offset).execute(),
        base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
      ]);
      return { rows, total: Number(total.n) };
    },

    /**
     * Counts of stored tests per run and status: one grouped query for a whole page of runs. A run
     * re-run in CI (results under several attempts) is counted per test case from its latest
     * attempt instead (`countLatestAttempts`).
     */
    /**
     * The derived counts a reader of `row` needs: none when the row stores all five, as a finish
     * with counts leaves it (`resolveCounts` prefers stored ones). Counting a 50,000-test run took
     * 250–300 ms on PostgreSQL, two or three times per finish with webhooks.
     */
    async derivedCounts(row: Pick<RunRow, 'id' | (typeof COUNT_COLUMNS)[number]>): Promise<StatusCounts> {
      if (COUNT_COLUMNS.every((col) => row[col] !== null)) return NO_TESTS;
      return (await this.statusCounts([row.id])).get(row.id)!;
    },

    async statusCounts(runIds: string[]): Promise<Map<string, StatusCounts>> {
      const out = new Map<string, StatusCounts>();
      for (const id of runIds) out.set(id, { ...NO_TESTS });
      const rerun = new Set<string>();
      for (const ids of chunk(runIds, IN_LIST_CHUNK)) {
        if (ids.length === 0) continue;
        const rows = await db.selectFrom('runs').select('id').where('id', 'in', ids).where('current_attempt', '>', 1).execute();
        for (const r of rows) rerun.add(r.id);
      }
      for (const id of rerun) {
        const rows = await db.selectFrom('tests').select(['case_id', 'run_attempt', 'status']).where('run_id', '=', id).execute();
        out.set(id, countLatestAttempts(rows));
      }
      // Every other run: what its writes of results added (migration 030), a few rows per run, not one per result.
      for (const ids of chunk(runIds.filter((id) => !rerun.has(id)), IN_LIST_CHUNK)) {
        if (ids.length === 0) continue;
        const rows = await db
          .selectFrom('run_result_counts')
          .select((eb) => ['run_id', ...STATUS_COUNT_FIELDS.map((p) => eb.fn.sum<number>(p).as(p))] as const)
          .where('run_id', 'in', ids)
          .groupBy('run_id')
          .execute();
        for (const r of rows) {
          const c = out.get(r.run_id)!;
          for (const p of STATUS_COUNT_FIELDS) c[p] = Number(r[p]);
        }
      }
      return out;
    },

    async update(id: string, patch: Updateable<RunsTable>) {
      await db.updateTable('runs').set(patch).where('id', '=', id).execute();
    },
  };
}
export type RunRepo = ReturnType<typeof createRunRepo>;

/**
 * Deletes runs with every row they own, in the caller's transaction. Tests, suites, artifacts and
 * the runs' counts (`run_result_counts`) go by FK cascade (tests by a trigger on PostgreSQL); test cases are project-level, so the ones these runs touched get their newest
 * result re-pointed and their stats marked dirty, and a case left with no result at all is removed
 * (it could not be listed: a flakiness entry names its newest result). Their results leave the
 * insights aggregates first (insights/upkeep.ts), and their failures the error-group aggregates
 * (errorGroups/upkeep.ts: read before the delete, subtracted after it). Files are the caller's job.
 */
export async function deleteRunsWithResults(trx: Db, runIds: string[]): Promise<void> {
  if (runIds.length === 0) return;
  const caseIds = (await trx.selectFrom('tests').select('case_id').distinct().where('run_id', 'in', runIds).execute()).map((r) => r.case_id);
  await uncountRuns(trx, runIds);
  const failures = await failuresOfRuns(trx, runIds);
  await trx.deleteFrom('runs').where('id', 'in', runIds).execute();
  await uncountFailures(trx, failures);
  for (const ids of chunk(caseIds, IN_LIST_CHUNK)) {
    await trx
      .updateTable('test_cases')
      .set((eb) => ({
        latest_test_id: eb.selectFrom('tests').select((e) => e.fn.max('tests.id').as('m')).whereRef('tests.case_id', '=', 'test_cases.id'),
        stats_dirty: 1,
      }))
      .where('id', 'in', ids)
      .execute();
    await trx.deleteFrom('test_cases').where('id', 'in', ids).where('latest_test_id', 'is', null).execute();
  }
}
