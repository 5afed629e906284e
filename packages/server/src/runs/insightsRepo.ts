import { fromJson } from '../db/values.js';
import { sql } from 'kysely';
import { dialectOf, type Db } from '../db/database.js';
import { chunk } from '../db/batch.js';
import { containsIgnoringCase, likePattern } from '../db/text.js';
import { unindexed } from '../db/planning.js';
import { eachCountingResult } from './attempts.js';
import { resultsOfCasesInRun, runEdgeId } from './caseResults.js';
import { failedInEarlierAttempt, replacedByLaterAttempt } from './attemptFilters.js';

export interface CaseOutcome {
  caseId: string;
  testId: string;
  title: string;
  fullTitle: string;
  filePath: string | null;
  status: string;
  errorMessage: string | null;
  /** errorGroups/fingerprint.ts; null without an error. */
  errorFingerprint: string | null;
  /** CODEOWNERS owners of the result's file (docs/decisions.md §13). */
  owners: string[];
}

const OUTCOME_COLUMNS = ['case_id', 'id', 'title', 'full_title', 'file_path', 'status', 'error_message', 'error_fingerprint', 'owners'] as const;
type OutcomeRow = { case_id: string; id: string; title: string; full_title: string; file_path: string | null; status: string; error_message: string | null; error_fingerprint: string | null; owners: string | null };
const toOutcome = (r: OutcomeRow): CaseOutcome => ({
  caseId: r.case_id, testId: r.id, title: r.title, fullTitle: r.full_title, filePath: r.file_path, status: r.status, errorMessage: r.error_message, errorFingerprint: r.error_fingerprint, owners: fromJson<string[]>(r.owners, []),
});
const FAILED = 'failed';
const suiteOrder = (out: CaseOutcome[]) => out.sort((a, b) => (a.filePath ?? '').localeCompare(b.filePath ?? '') || a.fullTitle.localeCompare(b.fullTitle));

/** A file's counts as `fileCounts` reads them. */
interface FileCountRow { file_path: string | null; total: number; passed: number; failed: number; flaky: number; skipped: number }

/** Read-only queries behind the dashboard's run insights (comparison, error groups, trend, suite). */
export function createInsightsRepo(db: Db) {
  /** Whether a CI re-run stored results under more than one attempt of this run. */
  const rerun = async (runId: string) => ((await db.selectFrom('runs').select('current_attempt').where('id', '=', runId).executeTakeFirst())?.current_attempt ?? 1) > 1;

  /** Each case's newest result of a run; with `durations`, its duration too (which leaves the covering tests_run index). */
  async function newest(runId: string, durations: boolean): Promise<Map<string, { id: string; status: string; duration: number }>> {
    const out = new Map<string, { id: string; status: string; duration: number }>();
    const cols = ['case_id', 'id', 'status', ...(durations ? (['duration'] as const) : [])] as const;
    if (await rerun(runId)) {
      // A CI re-run: the latest attempt's result, and a fail-then-pass across attempts reads flaky.
      const rows = await db.selectFrom('tests').select([...cols, 'run_attempt']).where('run_id', '=', runId).orderBy('id').execute();
      eachCountingResult(rows, (r, status) => out.set(r.case_id, { id: r.id, status, duration: (r as { duration?: number }).duration ?? 0 }));
      return out;
    }
    const rows = await db.selectFrom('tests').select(cols).where('run_id', '=', runId).orderBy('id').execute();
    for (const r of rows) out.set(r.case_id, { id: r.id, status: r.status, duration: (r as { duration?: number }).duration ?? 0 });
    return out;
  }

  const lastId = (runId: string) => runEdgeId(db, runId, 'desc');

  /**
   * Each given case's newest result in a run as it counts there (runs/attempts.ts): in a CI re-run,
   * of the latest attempt that ran it, `flaky` when it passed after failing in an earlier attempt.
   */
  async function countingOfCases(runId: string, caseIds: string[], reran: boolean): Promise<Map<string, { id: string; status: string }>> {
    const out = new Map<string, { id: string; status: string }>();
    const rows = await resultsOfCasesInRun(db, runId, caseIds, ['status', 'run_attempt'], !reran);
    if (reran) eachCountingResult(rows, (r, status) => out.set(r.case_id, { id: r.id, status }));
    else for (const r of rows) out.set(r.case_id, { id: r.id, status: r.status });
    return out;
  }

  return {
    /** The newest finished run of the project on `branch` created before `beforeId` (ids are time-ordered). */
    async previousFinished(projectId: string, branch: string | null, beforeId: string) {
      let q = db.selectFrom('runs').select(['id', 'branch', 'status', 'created_at']).where('project_id', '=', projectId).where('id', '<', beforeId).where('finished_at', 'is not', null);
      q = branch === null ? q.where('branch', 'is', null) : q.where('branch', '=', branch);
      return q.orderBy('id', 'desc').limit(1).executeTakeFirst();
    },

    /**
     * The newest row of each case of a run (a retried test may be stored once per attempt), as
     * case id → result id, status and duration: one index range over the run's rows, light columns only.
     */
    async newestPerCase(runId: string): Promise<Map<string, { id: string; status: string }>> {
      return newest(runId, false);
    },
    /** As newestPerCase, with durations (compare): a read of each row, where newestPerCase stays on the covering index. */
    async newestPerCaseWithDurations(runId: string): Promise<Map<string, { id: string; status: string; duration: number }>> {
      return newest(runId, true);
    },

    /** Titles, file and error of some results, in suite order (file, then full title). */
    async outcomesOf(testIds: string[]): Promise<CaseOutcome[]> {
      const out: CaseOutcome[] = [];
      for (const ids of chunk(testIds, 500)) {
        if (ids.length === 0) continue;
        out.push(...(await db.selectFrom('tests').select(OUTCOME_COLUMNS).where('id', 'in', ids).execute()).map(toOutcome));
      }
      return suiteOrder(out);
    },

    /**
     * The newest result of each case of a run whose status is one of `statuses`, in suite order:
     * what the run page, summaries and chat messages list. Its cost follows the matching rows (a
     * run's failures), not the run's size: a 50,000-test run read every row's case and status in
     * newestPerCase (issue 30). Of a CI re-run, the cases that have a result with one of the statuses
     * are read (all their attempts), still not the whole run.
     */
    async newestWithStatus(runId: string, statuses: string[]): Promise<CaseOutcome[]> {
      if (await rerun(runId)) {
        // A case counts with one of `statuses` only if one of its results in the run has it, or,
        // for `flaky`, failed (a pass after a failed attempt): those cases' results are read, not the run's.
        const seeds = statuses.includes('flaky') ? [...new Set([...statuses, FAILED])] : statuses;
        const cases = await db.selectFrom('tests').select('case_id').distinct().where('run_id', '=', runId).where('status', 'in', seeds).execute();
        const counting = await countingOfCases(runId, cases.map((c) => c.case_id), true);
        return this.outcomesOf([...counting.values()].filter((r) => statuses.includes(r.status)).map((r) => r.id));
      }
      const last = await lastId(runId);
      if (!last) return [];
      const rows = await db
        .selectFrom('tests')
        .select(OUTCOME_COLUMNS)
        .where('run_id', '=', runId)
        .where('status', 'in', statuses)
        // Not replaced by a later result of the same case in this run (repeat-each, a resent test):
        // a range of tests_case_window bounded by the run's last result, so later runs are not read;
        // the run is only a filter there (db/planning.ts).
        .where(({ not, exists, selectFrom, ref }) =>
          not(exists(selectFrom('tests as later').select('later.id').whereRef('later.case_id', '=', 'tests.case_id').whereRef('later.id', '>', 'tests.id').where('later.id', '<=', last).where(unindexed('later.run_id'), '=', ref('tests.run_id')))),
        )
        .execute();
      return suiteOrder(rows.map(toOutcome));
    },

    /** Each given case's newest result in a run (absent: the run has none), without reading the run's other cases. */
    async newestOfCases(runId: string, caseIds: string[]): Promise<Map<string, { id: string; status: string }>> {
      if (caseIds.length === 0) return new Map();
      return countingOfCases(runId, caseIds, await rerun(runId));
    },

    /** Which of these test cases are quarantined now. */
    async quarantinedOf(caseIds: string[]): Promise<Set<string>> {
      const out = new Set<string>();
      for (const ids of chunk(caseIds, 500)) {
        if (ids.length === 0) continue;
        const rows = await db.selectFrom('test_cases').select('id').where('id', 'in', ids).where('is_quarantined', '=', 1).execute();
        for (const r of rows) out.add(r.id);
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
      const text = q.text;
      if (text) {
        const { foldCase } = dialectOf(db);
        const like = (col: 'run_title' | 'branch' | 'commit_sha' | 'commit_message') => containsIgnoringCase(col, text, foldCase);
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

    /** Counts per file and status of a run: the top level of its suite tree (grouped in index order, no sort). */
    async fileCounts(runId: string) {
      const n = (status: string) => sql<number>`sum(case when status = ${status} then 1 else 0 end)`;
      const toFile = (r: FileCountRow) => ({
        filePath: r.file_path, total: Number(r.total), counts: { passed: Number(r.passed), failed: Number(r.failed), flaky: Number(r.flaky), skipped: Number(r.skipped) },
      });
      if (await rerun(runId)) {
        // A CI re-run counts the latest attempt per case, a pass after an earlier attempt's failure
        // as flaky (runs/attempts.ts), here in SQL: reading the run's 100,000 light rows into
        // JavaScript to count them was most of a 50,000-test re-run's page (docs/benchmarks.md).
        const { rows } = await sql<FileCountRow>`
          select file_path, count(*) as total, ${n('passed')} as passed, ${n('failed')} as failed, ${n('flaky')} as flaky, ${n('skipped')} as skipped
          from (
            select file_path, case when status = 'passed' and first_failure < run_attempt then 'flaky' else status end as status
            from (select file_path, status, run_attempt, max(run_attempt) over w as latest, min(case when status = 'failed' then run_attempt end) over w as first_failure
                  from tests where run_id = ${runId} window w as (partition by case_id)) x
            where run_attempt = latest) r
          group by file_path`.execute(db);
        return rows.map(toFile).sort((a, b) => (a.filePath ?? '').localeCompare(b.filePath ?? ''));
      }
      const rows = await db
        .selectFrom('tests')
        .select(['file_path', (eb) => eb.fn.countAll<number>().as('total'), n('passed').as('passed'), n('failed').as('failed'), n('flaky').as('flaky'), n('skipped').as('skipped')])
        .where('run_id', '=', runId)
        .groupBy('file_path')
        .execute();
      return rows.map(toFile);
    },

    /** One page of a run's results in suite order (file, then full title), with a status filter and search. */
    /** `total`: the matching results' count when the caller knows it (from fileCounts), so it is not counted again. */
    async suitePage(q: { runId: string; status?: string; search?: string; limit: number; offset: number; total?: number }) {
      let base = db.selectFrom('tests').where('run_id', '=', q.runId);
      const reran = await rerun(q.runId);
      // A test that failed in an earlier attempt of this run and passed in its latest reads flaky (runs/attempts.ts).
      const failedBefore = failedInEarlierAttempt(q.runId);
      if (reran) {
        // A result a later attempt of the same test replaced is not part of the run any more (its
        // counts and insights skip it too); the shards table shows the attempts.
        base = base.where(sql<boolean>`not ${replacedByLaterAttempt(q.runId)}`);
      }
      if (q.status && reran && (q.status === 'flaky' || q.status === 'passed')) {
        // Only a case with a failed result in this run can have failed before: the set of those
        // (few) cases is read once, so the per-row check runs for them, not for every passed result.
        const failedHere = sql<boolean>`tests.case_id in (select f.case_id from tests as f where f.run_id = ${q.runId} and f.status = 'failed')`;
        base =
          q.status === 'flaky'
            ? base.where((eb) => eb.or([eb('status', '=', 'flaky'), eb.and([eb('status', '=', 'passed'), failedHere, failedBefore])]))
            : base.where('status', '=', 'passed').where(sql<boolean>`not (${failedHere} and ${failedBefore})`);
      } else if (q.status) base = base.where('status', '=', q.status);
      if (q.search) {
        const { foldCase } = dialectOf(db);
        const search = q.search;
        base = base.where((eb) => eb.or([containsIgnoringCase('full_title', search, foldCase), containsIgnoringCase('file_path', search, foldCase)]));
      }
      const [found, total] = await Promise.all([
        base
          .select(['id', 'title', 'full_title', 'file_path', 'status', 'duration', 'retries', 'attempt', 'is_flaky'])
          .$if(reran, (qb) => qb.select(failedBefore.as('failed_before')))
          // The index's own order (run, file, title, status): the page is read in order, never sorted.
          .orderBy('file_path')
          .orderBy('full_title')
          .orderBy('status')
          .limit(q.limit)
          .offset(q.offset)
          .execute(),
        q.total !== undefined ? { n: q.total } : base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
      ]);
      const rows = found.map(({ failed_before, ...r }) => (r.status === 'passed' && Number(failed_before ?? 0) === 1 ? { ...r, status: 'flaky' } : r));
      return { rows, total: Number(total.n) };
    },

  };
}
export type InsightsRepo = ReturnType<typeof createInsightsRepo>;
