import type { RunListItem } from '@testreport/contract';
import type { Principal } from '../authz/principal.js';
import type { Deps } from '../deps.js';
import { NotFoundError } from '../lib/errors.js';
import { createInsightsRepo } from './insightsRepo.js';
import { passRate, toRun } from './present.js';
import { createRunRepo } from './repo.js';
import { NO_TESTS, type StatusCounts } from './statusCounts.js';

export interface TrendPoint {
  runId: string;
  status: string;
  passRate: number;
  duration: number | null;
  createdAt: string;
}

export interface FileNode {
  filePath: string;
  counts: Record<string, number>;
  total: number;
}
/** The statuses fileCounts counts per file. */
const COUNTED = new Set(['passed', 'failed', 'flaky', 'skipped']);

/**
 * A run's counts from its file counts: the same results (per latest attempt in a re-run) as
 * `RunRepo.statusCounts`, so a page holding the files need not count the run a second time.
 */
function countsOfFiles(files: FileNode[]): StatusCounts {
  const out: StatusCounts = { ...NO_TESTS };
  for (const f of files) {
    out.total += f.total;
    for (const s of COUNTED) out[s as 'passed'] += f.counts[s] ?? 0;
  }
  return out;
}

/**
 * Project- and run-level views the dashboard lists: runs with tag and text filters, the pass-rate
 * and duration trend, and a run's suite (file counts plus one page of results in suite order).
 */
export function createRunOverview(deps: Deps) {
  const repo = createInsightsRepo(deps.db);
  const runs = createRunRepo(deps.db);

  return {
    async browse(principal: Principal, q: { projectId: string; branch?: string; status?: string; tag?: string; text?: string; limit: number; offset: number }) {
      await deps.authz.project(principal, q.projectId, 'read', 'param');
      const { rows, total } = await repo.searchRuns(q);
      const unsettled = rows.filter((r) => [r.total_tests, r.passed_tests, r.failed_tests, r.skipped_tests, r.flaky_tests].includes(null));
      const counts = await runs.statusCounts(unsettled.map((r) => r.id));
      const data = rows.map((r) => {
        const full = toRun(r, counts.get(r.id) ?? NO_TESTS);
        const item: RunListItem & { runTitle: string | null; commitMessage: string | null; ciBuildUrl: string | null; tags: string[] } = {
          id: full.id, projectId: full.projectId, status: full.status, branch: full.branch, commitSha: full.commitSha, totalTests: full.totalTests,
          passedTests: full.passedTests, failedTests: full.failedTests, skippedTests: full.skippedTests, flakyTests: full.flakyTests,
          passRate: full.passRate, duration: full.duration, createdAt: full.createdAt,
          runTitle: full.runTitle, commitMessage: full.commitMessage, ciBuildUrl: full.ciBuildUrl, tags: full.tags,
        };
        return item;
      });
      return { data, total, limit: q.limit, offset: q.offset };
    },

    async branches(principal: Principal, projectId: string): Promise<string[]> {
      await deps.authz.project(principal, projectId, 'read', 'param');
      return repo.branches(projectId, 200);
    },

    /** Pass rate and duration of the newest `limit` runs, oldest first (counts as stored; a running run's are partial). */
    async trend(principal: Principal, projectId: string, limit = 30): Promise<TrendPoint[]> {
      await deps.authz.project(principal, projectId, 'read', 'param');
      const rows = await repo.recentRuns(projectId, limit);
      const unsettled = rows.filter((r) => r.total_tests === null || r.passed_tests === null);
      const counts = await runs.statusCounts(unsettled.map((r) => r.id));
      return rows.map((r) => {
        const c = counts.get(r.id) ?? NO_TESTS;
        return { runId: r.id, status: r.status, passRate: passRate(r.passed_tests ?? c.passed, r.total_tests ?? c.total), duration: r.duration, createdAt: r.created_at };
      });
    },

    /** Files of a run with counts per status, and one page of its results in suite order. */
    async suite(principal: Principal, runId: string, q: { status?: string; search?: string; limit: number; offset: number }) {
      const run = await runs.find(runId);
      if (!run) throw new NotFoundError('Run');
      await deps.authz.project(principal, run.project_id, 'read', 'resource', 'run');
      const files: FileNode[] = (await repo.fileCounts(runId)).map((f) => ({ filePath: f.filePath ?? '', counts: f.counts, total: f.total }));
      // The page's total is in the file counts (the same statuses, per latest attempt in a re-run),
      // unless a search narrows it: counting again read the whole run, with a probe per result in a re-run.
      const counts = countsOfFiles(files);
      const counted = !q.search && (q.status === undefined || COUNTED.has(q.status));
      const total = counted ? (q.status ? counts[q.status as 'passed'] : counts.total) : undefined;
      const page = await repo.suitePage({ runId, ...q, total });
      // `counts`: the run's counts by the same rule, for a caller that shows them too (the run page).
      return { files, counts, ...page, limit: q.limit, offset: q.offset };
    },
  };
}
export type RunOverviewService = ReturnType<typeof createRunOverview>;
