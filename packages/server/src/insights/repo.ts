import type { Kysely } from 'kysely';
import type { Db } from '../db/database.js';
import { chunk, IN_LIST_CHUNK } from '../db/batch.js';
import { ownedBy } from '../owners/filter.js';
import type { BucketCount } from './buckets.js';
import { DenseHistogram } from './histogram.js';

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
 * Reads of the insights aggregates (insights/upkeep.ts appends them, insights/rollup.ts folds them).
 * Every read adds the folded rows (`insight_rollups`) of its scope to the rows pending since the
 * last fold, in one statement, so a fold committing meanwhile never counts a result twice or not at
 * all. The folded rows are a range of their primary key (project, scope, branch, day…); the pending
 * ones are at most a few minutes of ingestion. Results are never read, only the listed tests' names.
 */
export function createInsightRepo(db: Db) {
  const any = db as unknown as Kysely<any>;
  const owned = (f: WindowFilter) =>
    db.selectFrom('test_cases').select('test_cases.id').where('test_cases.project_id', '=', f.projectId).where(ownedBy(f.owner!, 'test_cases.owners'));
  const inWindow = (f: WindowFilter) => {
    const folded = any
      .selectFrom('insight_rollups')
      .where('project_id', '=', f.projectId)
      .where('all_branches', '=', f.branch === undefined ? 1 : 0)
      .where('branch', '=', f.branch ?? '')
      .where('day', '>=', f.from)
      .where('day', '<=', f.to);
    let pending = any.selectFrom('insight_pending').where('project_id', '=', f.projectId).where('day', '>=', f.from).where('day', '<=', f.to);
    if (f.branch !== undefined) pending = pending.where('branch', '=', f.branch);
    if (f.owner === undefined) return { folded, pending };
    return { folded: folded.where('case_id', 'in', owned(f)), pending: pending.where('case_id', 'in', owned(f)) };
  };
  const COUNTS = ['case_id', 'day', 'results', 'passed', 'failed', 'flaky', 'skipped', 'latest_test_id'] as const;
  const counts = (f: WindowFilter) => {
    const { folded, pending } = inWindow(f);
    return folded.select(COUNTS).unionAll(pending.select(COUNTS)).as('c');
  };

  return {
    async caseCounts(f: WindowFilter): Promise<CaseCounts[]> {
      const rows = await any
        .selectFrom(counts(f))
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
      return rows
        .map((r: Record<string, any>) => ({
          caseId: r.case_id, results: Number(r.results), passed: Number(r.passed), failed: Number(r.failed), flaky: Number(r.flaky), skipped: Number(r.skipped), latestTestId: r.latest,
        }))
        .filter((c) => c.results > 0);
    },

    /** Results and passed results per day (the trend's pass rate). */
    async dayCounts(f: WindowFilter): Promise<Map<string, { results: number; passed: number }>> {
      const rows = await any
        .selectFrom(counts(f))
        .select((eb) => ['day', eb.fn.sum<number>('results').as('results'), eb.fn.sum<number>('passed').as('passed')])
        .groupBy('day')
        .execute();
      return new Map(rows.map((r: Record<string, any>) => [r.day as string, { results: Number(r.results), passed: Number(r.passed) }]));
    },

    /** Duration histograms per case, split at `splitDay`: days before it are `before`, the rest `after`. */
    async histograms(f: WindowFilter, splitDay: string): Promise<Map<string, { before: BucketCount[]; after: BucketCount[] }>> {
      const { folded, pending } = inWindow(f);
      const columns = ['case_id', 'day', 'histogram'] as const;
      const rows = await folded.select(columns).unionAll(pending.select(columns)).execute();
      const byCase = new Map<string, { before: DenseHistogram; after: DenseHistogram }>();
      for (const r of rows as Record<string, any>[]) {
        let h = byCase.get(r.case_id);
        if (!h) byCase.set(r.case_id, (h = { before: new DenseHistogram(), after: new DenseHistogram() }));
        (r.day >= splitDay ? h.after : h.before).addPacked(r.histogram);
      }
      return new Map([...byCase].map(([caseId, h]) => [caseId, { before: h.before.buckets(), after: h.after.buckets() }]));
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
