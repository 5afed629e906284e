import { sql, type Kysely } from 'kysely';
import type { Db } from '../db/database.js';
import { chunk, IN_LIST_CHUNK } from '../db/batch.js';
import { ownedBy } from '../owners/filter.js';
import type { BucketCount } from './buckets.js';

export interface WindowFilter {
  projectId: string;
  /** First and last UTC day, inclusive (YYYY-MM-DD). */
  from: string;
  to: string;
  branch?: string;
  owner?: string;
}

export interface CaseCounts {
  caseId: string;
  results: number;
  passed: number;
  failed: number;
  flaky: number;
  skipped: number;
  latestTestId: string;
}

/**
 * Reads of the insights aggregates (insights/upkeep.ts keeps them). Every read is one range of the
 * aggregates' primary key (project, day…); results are never read, only the few listed tests' names.
 */
export function createInsightRepo(db: Db) {
  /** Rows of `table` in the window; with `owner`, only cases whose latest result that owner owns. */
  // Both tables share the key columns the filters use; untyped here, typed where rows are read.
  const inWindow = (table: 'insight_case_days' | 'insight_case_durations', f: WindowFilter) => {
    let q = (db as unknown as Kysely<any>).selectFrom(table).where('project_id', '=', f.projectId).where('day', '>=', f.from).where('day', '<=', f.to);
    if (f.branch !== undefined) q = q.where('branch', '=', f.branch);
    if (f.owner !== undefined) {
      const owner = f.owner;
      q = q.where('case_id', 'in', db.selectFrom('test_cases').select('test_cases.id').where('test_cases.project_id', '=', f.projectId).where(ownedBy(owner, 'test_cases.owners')));
    }
    return q;
  };

  return {
    async caseCounts(f: WindowFilter): Promise<CaseCounts[]> {
      const rows = await inWindow('insight_case_days', f)
        .select((eb) => [
          'case_id',
          eb.fn.sum<number>('results').as('results'),
          eb.fn.sum<number>('passed').as('passed'),
          eb.fn.sum<number>('failed').as('failed'),
          eb.fn.sum<number>('flaky').as('flaky'),
          eb.fn.sum<number>('skipped').as('skipped'),
          eb.fn.max<string>('latest_test_id').as('latest'),
        ])
        .groupBy('case_id')
        .execute();
      return rows.map((r: Record<string, any>) => ({
        caseId: r.case_id, results: Number(r.results), passed: Number(r.passed), failed: Number(r.failed), flaky: Number(r.flaky), skipped: Number(r.skipped), latestTestId: r.latest,
      }));
    },

    /** Results and passed results per day (the trend's pass rate). */
    async dayCounts(f: WindowFilter): Promise<Map<string, { results: number; passed: number }>> {
      const rows = await inWindow('insight_case_days', f)
        .select((eb) => ['day', eb.fn.sum<number>('results').as('results'), eb.fn.sum<number>('passed').as('passed')])
        .groupBy('day')
        .execute();
      return new Map(rows.map((r: Record<string, any>) => [r.day as string, { results: Number(r.results), passed: Number(r.passed) }]));
    },

    /** Duration histograms per case, split at `splitDay`: days before it are `before`, the rest `after`. */
    async histograms(f: WindowFilter, splitDay: string): Promise<Map<string, { before: BucketCount[]; after: BucketCount[] }>> {
      // A literal (a YYYY-MM-DD the service made): PostgreSQL matches the select and GROUP BY
      // expressions by text, and two bound parameters would be two different expressions.
      if (!/^\d{4}-\d{2}-\d{2}$/.test(splitDay)) throw new Error(`not a day: ${splitDay}`);
      const after = sql<number>`case when day >= ${sql.lit(splitDay)} then 1 else 0 end`;
      const rows = await inWindow('insight_case_durations', f)
        .select((eb) => ['case_id', sql<number>`bucket`.as('bucket'), after.as('after'), eb.fn.sum<number>(sql`n`).as('n'), eb.fn.sum<number>(sql`total_ms`).as('total')])
        .groupBy(['case_id', sql`bucket`, after])
        .execute();
      const out = new Map<string, { before: BucketCount[]; after: BucketCount[] }>();
      for (const r of rows as Record<string, any>[]) {
        let h = out.get(r.case_id);
        if (!h) out.set(r.case_id, (h = { before: [], after: [] }));
        (Number(r.after) === 1 ? h.after : h.before).push({ bucket: Number(r.bucket), n: Number(r.n), totalMs: Number(r.total) });
      }
      return out;
    },

    /** Runs created in the window (creation time and wall time), for the trend's run counts and medians. */
    async runs(f: WindowFilter, fromIso: string) {
      let q = db.selectFrom('runs').select(['created_at', 'duration']).where('project_id', '=', f.projectId).where('created_at', '>=', fromIso);
      if (f.branch !== undefined) q = f.branch === '' ? q.where('branch', 'is', null) : q.where('branch', '=', f.branch);
      return q.execute();
    },

    /** Names of the listed cases, and which of their latest results still exist. */
    async names(caseIds: string[], testIds: string[]) {
      const cases = new Map<string, { full_title: string; file_path: string; latest_test_id: string | null }>();
      for (const ids of chunk(caseIds, IN_LIST_CHUNK)) {
        for (const r of await db.selectFrom('test_cases').select(['id', 'full_title', 'file_path', 'latest_test_id']).where('id', 'in', ids).execute()) cases.set(r.id, r);
      }
      const existing = new Set<string>();
      for (const ids of chunk(testIds, IN_LIST_CHUNK)) {
        for (const r of await db.selectFrom('tests').select('id').where('id', 'in', ids).execute()) existing.add(r.id);
      }
      return { cases, existing };
    },
  };
}
export type InsightRepo = ReturnType<typeof createInsightRepo>;
