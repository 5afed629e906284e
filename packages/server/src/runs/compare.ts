import { COMPARE_LIMITS, type ComparedTest, type ParsedQueryOf, type RunComparisonResponse } from '@testreport/contract';
import type { Principal } from '../authz/principal.js';
import type { Deps } from '../deps.js';
import { NotFoundError } from '../lib/errors.js';
import { FAILING, GOOD } from './comparison.js';
import { createInsightsRepo, type CaseOutcome } from './insightsRepo.js';
import { resolveCounts } from './present.js';
import { createRunRepo, type RunRow } from './repo.js';
import { firstErrorLine } from './summary.js';

type Newest = Map<string, { id: string; status: string; duration: number }>;
type Pair = { caseId: string; now?: { id: string; status: string; duration: number }; was?: { id: string; status: string; duration: number } };
type ListName = Exclude<keyof RunComparisonResponse, 'run' | 'base'>;

/** A duration change that counts: at least 20% of the base duration and at least 100 ms. */
export function durationChanged(now: number, was: number): 'slower' | 'faster' | null {
  const delta = now - was;
  if (Math.abs(delta) < COMPARE_LIMITS.slowerMinMs || Math.abs(delta) < was * COMPARE_LIMITS.slowerRatio) return null;
  return delta > 0 ? 'slower' : 'faster';
}

/**
 * Sorts every test case of two runs into the comparison's lists (a case may be in two: still
 * failing and slower). Skipped results have no meaningful duration, so only cases that ran in
 * both runs are slower or faster.
 */
export function classify(now: Newest, before: Newest): Record<ListName, Pair[]> {
  const out: Record<ListName, Pair[]> = { newFailures: [], fixed: [], stillFailing: [], added: [], removed: [], slower: [], faster: [] };
  for (const [caseId, n] of now) {
    const w = before.get(caseId);
    const pair = { caseId, now: n, was: w };
    if (!w) out.added.push(pair);
    if (n.status === FAILING) out[w?.status === FAILING ? 'stillFailing' : 'newFailures'].push(pair);
    else if (w?.status === FAILING && GOOD.has(n.status)) out.fixed.push(pair);
    if (w && n.status !== 'skipped' && w.status !== 'skipped') {
      const change = durationChanged(n.duration, w.duration);
      if (change) out[change].push(pair);
    }
  }
  for (const [caseId, w] of before) if (!now.has(caseId)) out.removed.push({ caseId, was: w });
  const byChange = (a: Pair, b: Pair) => Math.abs(b.now!.duration - b.was!.duration) - Math.abs(a.now!.duration - a.was!.duration);
  out.slower.sort(byChange);
  out.faster.sort(byChange);
  return out;
}

/**
 * `GET /runs/:id/compare?base=`: any two runs of one project, whatever their branches. A base run
 * of another project is "not found" (404), as an unknown one is: the answer never tells a caller
 * that a run exists in a project it may not read. Authorization: `read` on the run's project.
 */
export function createRunCompare(deps: Deps) {
  const runs = createRunRepo(deps.db);
  const insights = createInsightsRepo(deps.db);

  async function present(row: RunRow): Promise<RunComparisonResponse['run']> {
    const counts = await runs.derivedCounts(row);
    return {
      id: row.id, projectId: row.project_id, status: row.status as RunComparisonResponse['run']['status'], branch: row.branch, commitSha: row.commit_sha,
      commitMessage: row.commit_message, runTitle: row.run_title, duration: row.duration, createdAt: row.created_at, ...resolveCounts(row, counts),
    };
  }

  return {
    async compare(principal: Principal, runId: string, q: ParsedQueryOf<'runs.compare'>): Promise<RunComparisonResponse> {
      const row = await runs.find(runId);
      if (!row) throw new NotFoundError('Run');
      await deps.authz.project(principal, row.project_id, 'read', 'resource', 'run');
      const baseRow = await runs.find(q.base);
      if (!baseRow || baseRow.project_id !== row.project_id) throw new NotFoundError('Base run');

      const [now, before, run, base] = await Promise.all([insights.newestPerCaseWithDurations(row.id), insights.newestPerCaseWithDurations(baseRow.id), present(row), present(baseRow)]);
      const lists = classify(now, before);
      // Titles and errors only of the cases listed (for two similar runs, a handful of rows); a removed
      // case is named by its base result, every other by its result in the run.
      const { removed, ...inRun } = lists;
      const [nowOutcomes, wasOutcomes] = await Promise.all([
        insights.outcomesOf([...new Set(Object.values(inRun).flat().map((p) => p.now!.id))]),
        insights.outcomesOf(removed.map((p) => p.was!.id)),
      ]);
      const outcome = new Map<string, CaseOutcome>([...nowOutcomes, ...wasOutcomes].map((o) => [o.testId, o]));
      // outcomesOf returns suite order; a case is in one of the two sides only.
      const order = new Map<string, number>([...nowOutcomes, ...wasOutcomes].map((o, i) => [o.caseId, i]));

      const item = (p: Pair): ComparedTest => {
        const shown = outcome.get((p.now ?? p.was)!.id)!;
        return {
          testId: p.now?.id ?? null, baseTestId: p.was?.id ?? null, title: shown.title, fullTitle: shown.fullTitle, filePath: shown.filePath,
          status: p.now?.status ?? null, baseStatus: p.was?.status ?? null, duration: p.now?.duration ?? null, baseDuration: p.was?.duration ?? null,
          error: shown.status === FAILING ? firstErrorLine(shown.errorMessage) : null,
        };
      };
      const list = (pairs: Pair[], suiteOrder: boolean) => {
        const sorted = suiteOrder ? [...pairs].sort((a, b) => order.get(a.caseId)! - order.get(b.caseId)!) : pairs;
        return { total: pairs.length, items: sorted.slice(0, q.limit).map(item) };
      };
      return {
        run, base,
        newFailures: list(lists.newFailures, true), fixed: list(lists.fixed, true), stillFailing: list(lists.stillFailing, true),
        added: list(lists.added, true), removed: list(lists.removed, true), slower: list(lists.slower, false), faster: list(lists.faster, false),
      };
    },
  };
}
export type RunCompareService = ReturnType<typeof createRunCompare>;
