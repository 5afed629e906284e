import { sql } from 'kysely';
import type { Db } from '../db/database.js';
import { chunk } from './repo.js';

export interface CaseOutcome {
  caseId: string;
  testId: string;
  title: string;
  fullTitle: string;
  filePath: string | null;
  status: string;
  errorMessage: string | null;
}

/** Escapes LIKE wildcards; used with `escape '\'`, which SQLite and PostgreSQL both understand. */
export const likePattern = (text: string) => `%${text.replace(/[\\%_]/g, (m) => `\\${m}`)}%`;

/** Read-only queries behind the dashboard's run insights (comparison, error groups, trend, suite). */
export function createInsightsRepo(db: Db) {
  return {
    /** The newest finished run of the project on `branch` created before `beforeId` (ids are time-ordered). */
    async previousFinished(projectId: string, branch: string | null, beforeId: string) {
      let q = db.selectFrom('runs').select(['id', 'branch', 'status', 'created_at']).where('project_id', '=', projectId).where('id', '<', beforeId).where('finished_at', 'is not', null);
      q = branch === null ? q.where('branch', 'is', null) : q.where('branch', '=', branch);
      return q.orderBy('id', 'desc').limit(1).executeTakeFirst();
    },

    /**
     * One outcome per case of a run: its newest row (a retried test may be stored once per attempt).
     * `statuses` narrows to those statuses of that newest row.
     */
    async outcomes(runId: string, statuses?: string[]): Promise<CaseOutcome[]> {
      const newest = db.selectFrom('tests').select((eb) => eb.fn.max('id').as('id')).where('run_id', '=', runId).groupBy('case_id');
      let q = db
        .selectFrom('tests')
        .select(['case_id', 'id', 'title', 'full_title', 'file_path', 'status', 'error_message'])
        .where('run_id', '=', runId)
        .where('id', 'in', newest);
      if (statuses) q = q.where('status', 'in', statuses);
      const rows = await q.orderBy('file_path').orderBy('full_title').execute();
      return rows.map((r) => ({ caseId: r.case_id, testId: r.id, title: r.title, fullTitle: r.full_title, filePath: r.file_path, status: r.status, errorMessage: r.error_message }));
    },

    /** The newest status of each of `caseIds` in a run. */
    async statusOfCases(runId: string, caseIds: string[]): Promise<Map<string, string>> {
      const out = new Map<string, string>();
      for (const ids of chunk(caseIds, 500)) {
        if (ids.length === 0) continue;
        const rows = await db.selectFrom('tests').select(['case_id', 'status', 'id']).where('run_id', '=', runId).where('case_id', 'in', ids).orderBy('id').execute();
        for (const r of rows) out.set(r.case_id, r.status);
      }
      return out;
    },

    /** Pass rate inputs and duration of the project's newest `limit` runs, oldest first. */
    async recentRuns(projectId: string, limit: number) {
      const rows = await db
        .selectFrom('runs')
        .select(['id', 'status', 'branch', 'total_tests', 'passed_tests', 'duration', 'created_at'])
        .where('project_id', '=', projectId)
        .orderBy('id', 'desc')
        .limit(limit)
        .execute();
      return rows.reverse();
    },

    /** Runs of a project filtered by branch, status, tag and text (title, branch, commit sha or message). */
    async searchRuns(q: { projectId: string; branch?: string; status?: string; tag?: string; text?: string; limit: number; offset: number }) {
      let base = db.selectFrom('runs').where('project_id', '=', q.projectId);
      if (q.status) base = base.where('status', '=', q.status);
      if (q.branch) base = base.where('branch', '=', q.branch);
      // Tags are a JSON array of strings: match the quoted element, not a substring of another tag.
      if (q.tag) base = base.where(sql<boolean>`tags like ${likePattern(JSON.stringify(q.tag))} escape '\\'`);
      if (q.text) {
        const p = likePattern(q.text);
        const like = (col: 'run_title' | 'branch' | 'commit_sha' | 'commit_message') => sql<boolean>`lower(${sql.ref(col)}) like lower(${p}) escape '\\'`;
        base = base.where((eb) => eb.or([like('run_title'), like('branch'), like('commit_sha'), like('commit_message')]));
      }
      const [rows, total] = await Promise.all([
        base.selectAll().orderBy('id', 'desc').limit(q.limit).offset(q.offset).execute(),
        base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
      ]);
      return { rows, total: Number(total.n) };
    },

    async branches(projectId: string, limit: number): Promise<string[]> {
      const rows = await db.selectFrom('runs').select('branch').distinct().where('project_id', '=', projectId).where('branch', 'is not', null).orderBy('branch').limit(limit).execute();
      return rows.map((r) => r.branch!);
    },

    /** Counts per file and status of a run: the top level of its suite tree. */
    async fileCounts(runId: string) {
      const rows = await db
        .selectFrom('tests')
        .select(['file_path', 'status', (eb) => eb.fn.countAll<number>().as('n')])
        .where('run_id', '=', runId)
        .groupBy(['file_path', 'status'])
        .execute();
      return rows.map((r) => ({ filePath: r.file_path, status: r.status, n: Number(r.n) }));
    },

    /** One page of a run's results in suite order (file, then full title), with a status filter and search. */
    async suitePage(q: { runId: string; status?: string; search?: string; limit: number; offset: number }) {
      let base = db.selectFrom('tests').where('run_id', '=', q.runId);
      if (q.status) base = base.where('status', '=', q.status);
      if (q.search) {
        const p = likePattern(q.search);
        base = base.where((eb) => eb.or([sql<boolean>`lower(full_title) like lower(${p}) escape '\\'`, sql<boolean>`lower(file_path) like lower(${p}) escape '\\'`]));
      }
      const [rows, total] = await Promise.all([
        base
          .select(['id', 'title', 'full_title', 'file_path', 'status', 'duration', 'retries', 'attempt', 'is_flaky'])
          .orderBy('file_path')
          .orderBy('full_title')
          .orderBy('id')
          .limit(q.limit)
          .offset(q.offset)
          .execute(),
        base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
      ]);
      return { rows, total: Number(total.n) };
    },

  };
}
export type InsightsRepo = ReturnType<typeof createInsightsRepo>;
