import { sql } from 'kysely';
import { dialectOf, type Db } from '../db/database.js';
import { ownedBy } from '../owners/filter.js';
import { FLAKINESS_WINDOW, type CaseStats, type ScoredResult } from './score.js';

interface WindowRow { case_id: string; run_id: string; run_attempt: number; status: string; is_flaky: number; commit_sha: string | null; created_at: string }

export interface BranchResult {
  id: string;
  status: string;
  isFlaky: boolean;
  createdAt: string;
}

export function createFlakinessRepo(db: Db) {
  return {
    async dirtyCasesOfProject(projectId: string): Promise<string[]> {
      const rows = await db.selectFrom('test_cases').select('id').where('project_id', '=', projectId).where('stats_dirty', '=', 1).execute();
      return rows.map((r) => r.id);
    },

    async dirtyCasesOfRun(runId: string): Promise<string[]> {
      const rows = await db
        .selectFrom('test_cases')
        .select('id')
        .where('stats_dirty', '=', 1)
        .where('id', 'in', (eb) => eb.selectFrom('tests').select('case_id').where('run_id', '=', runId))
        .execute();
      return rows.map((r) => r.id);
    },

    /**
     * Of these cases, the dirty ones no other transaction is writing, locked until the caller's
     * transaction ends; the others are skipped and stay dirty for the next reader. A batch locks
     * the cases it upserts in key order and keeps them until it commits, so a recompute that waited
     * for them while holding cases of its own deadlocked with it on PostgreSQL (a 500 to the batch,
     * seen at 50,000 tests per run). A skipped case gets a result of that batch and is marked dirty
     * by it anyway. Locking before reading also keeps a result committed between the read and the
     * UPDATE from being covered by a stale score and a cleared flag. SQLite's writer holds the
     * whole database, so there every case is free.
     */
    async lockFree(caseIds: string[]): Promise<string[]> {
      if (caseIds.length === 0) return [];
      // Clean ones too are left out: another recompute (a second server, GET /flakiness beside the
      // finish's) has just done them.
      const rows = await db.selectFrom('test_cases').select('id').where('id', 'in', caseIds).where('stats_dirty', '=', 1).orderBy('id').forUpdate().skipLocked().execute();
      return rows.map((r) => r.id);
    },

    /**
     * The newest non-skipped results since `since` of each case, at most 50 per case: one statement
     * of bounded index ranges (a UNION ALL of one LIMITed range per case) instead of one query per
     * case, because per-statement overhead, not I/O, dominates a recompute of hundreds of cases.
     */
    async windows(caseIds: string[], since: string): Promise<Map<string, ScoredResult[]>> {
      const out = new Map<string, ScoredResult[]>(caseIds.map((id) => [id, []]));
      if (caseIds.length === 0) return out;
      const add = (r: WindowRow) =>
        out.get(r.case_id)!.push({ runId: r.run_id, runAttempt: r.run_attempt, status: r.status, isFlaky: r.is_flaky === 1, commitSha: r.commit_sha, createdAt: r.created_at });
      if (dialectOf(db).lateralOverArrays) {
        const { rows } = await sql<WindowRow>`select w.* from unnest(cast(${caseIds} as text[])) as c(id) cross join lateral (
          select case_id, run_id, run_attempt, status, is_flaky, commit_sha, created_at from tests
          where tests.case_id = c.id and status <> 'skipped' and created_at >= ${since} order by id desc limit ${FLAKINESS_WINDOW}) w`.execute(db);
        for (const r of rows) add(r);
        return out;
      }
      const arm = (caseId: string, i: number) =>
        db
          .selectFrom(
            db
              .selectFrom('tests')
              .select(['case_id', 'run_id', 'run_attempt', 'status', 'is_flaky', 'commit_sha', 'created_at'])
              .where('case_id', '=', caseId)
              .where('status', '<>', 'skipped')
              .where('created_at', '>=', since)
              .orderBy('id', 'desc')
              .limit(FLAKINESS_WINDOW)
              .as(`w${i}`),
          )
          .selectAll();
      let query = arm(caseIds[0], 0);
      for (let i = 1; i < caseIds.length; i++) query = query.unionAll(arm(caseIds[i], i));
      for (const r of await query.execute()) add(r);
      return out;
    },

    /** Writes the stats of many cases in one UPDATE (CASE per column) and clears their dirty flag. */
    async saveStats(stats: Map<string, CaseStats>) {
      const ids = [...stats.keys()];
      if (ids.length === 0) return;
      // Explicit casts: PostgreSQL types bare CASE parameters as text. `double precision` is 8 bytes on both (SQLite reads it as REAL).
      const column = <K extends keyof CaseStats>(key: K, type: 'double precision' | 'integer' | 'text') =>
        sql<CaseStats[K]>`case ${sql.ref('id')} ${sql.join(ids.map((id) => sql`when ${id} then cast(${stats.get(id)![key]} as ${sql.raw(type)})`), sql` `)} end`;
      await db
        .updateTable('test_cases')
        .set({
          flakiness_score: column('score', 'double precision'),
          total_runs: column('totalRuns', 'integer'),
          flaky_runs: column('flakyRuns', 'integer'),
          last_flaky_at: column('lastFlakyAt', 'text'),
          stats_dirty: 0,
        })
        .where('id', 'in', ids)
        .execute();
    },

    async settings(projectId: string) {
      return db.selectFrom('project_settings').selectAll().where('project_id', '=', projectId).executeTakeFirst();
    },

    /**
     * Auto-quarantine candidates among the run's cases (docs/decisions.md §7, §13): not quarantined, ≥ minRuns
     * scored results, score ≥ threshold, and a flaky result since the case was last released.
     */
    async quarantineCandidatesOfRun(runId: string, threshold: number, minRuns: number) {
      return db
        .selectFrom('test_cases')
        .select(['id', 'flakiness_score', 'total_runs'])
        .where('id', 'in', (eb) => eb.selectFrom('tests').select('case_id').where('run_id', '=', runId))
        .where('is_quarantined', '=', 0)
        .where('total_runs', '>=', minRuns)
        .where('flakiness_score', '>=', threshold)
        .where((eb) => eb.or([eb('released_at', 'is', null), eb('last_flaky_at', '>', eb.ref('released_at'))]))
        .orderBy('id')
        .execute();
    },

    async quarantinedCasesOfRun(runId: string) {
      return db
        .selectFrom('test_cases')
        .select(['id', 'quarantined_at'])
        .where('id', 'in', (eb) => eb.selectFrom('tests').select('case_id').where('run_id', '=', runId))
        .where('is_quarantined', '=', 1)
        .orderBy('id')
        .execute();
    },

    /** The newest `n` non-skipped results of each case on `branch`, newest first (one statement, as `windows`). */
    async lastOnBranch(caseIds: string[], branch: string, n: number): Promise<Map<string, BranchResult[]>> {
      const out = new Map<string, BranchResult[]>(caseIds.map((id) => [id, []]));
      if (caseIds.length === 0) return out;
      const arm = (caseId: string, i: number) =>
        db
          .selectFrom(
            db
              .selectFrom('tests')
              .select(['id', 'case_id', 'status', 'is_flaky', 'created_at'])
              .where('case_id', '=', caseId)
              .where('branch', '=', branch)
              .where('status', '<>', 'skipped')
              .orderBy('id', 'desc')
              .limit(n)
              .as(`b${i}`),
          )
          .selectAll();
      let query = arm(caseIds[0], 0);
      for (let i = 1; i < caseIds.length; i++) query = query.unionAll(arm(caseIds[i], i));
      for (const r of await query.execute()) out.get(r.case_id)!.push({ id: r.id, status: r.status, isFlaky: r.is_flaky === 1, createdAt: r.created_at });
      for (const list of out.values()) list.sort((a, b) => (a.id < b.id ? 1 : -1));
      return out;
    },

    async list(q: { projectId: string; minScore?: number; quarantined?: boolean; owner?: string; limit: number; offset: number }) {
      let base = db.selectFrom('test_cases').where('project_id', '=', q.projectId).where('latest_test_id', 'is not', null);
      if (q.owner) base = base.where(ownedBy(q.owner));
      if (q.quarantined === true) base = base.where('is_quarantined', '=', 1);
      else base = base.where('flakiness_score', '>', 0);
      if (q.quarantined === false) base = base.where('is_quarantined', '=', 0);
      if (q.minScore !== undefined) base = base.where('flakiness_score', '>=', q.minScore);
      const [rows, summary] = await Promise.all([
        base.selectAll().orderBy('flakiness_score', 'desc').orderBy('id').limit(q.limit).offset(q.offset).execute(),
        base
          .select((eb) => [
            eb.fn.countAll<number>().as('total'),
            eb.fn.sum<number>(eb.case().when('flakiness_score', '>', 0).then(1).else(0).end()).as('flaky'),
            eb.fn.sum<number>('is_quarantined').as('quarantined'),
            eb.fn.avg<number>('flakiness_score').as('avg'),
          ])
          .executeTakeFirstOrThrow(),
      ]);
      return { rows, summary };
    },

    async caseOfTest(testId: string) {
      return db.selectFrom('tests').select(['case_id', 'project_id']).where('id', '=', testId).executeTakeFirst();
    },
  };
}
