import { REGRESSION_MIN_MS, REGRESSION_MIN_RATIO, type Insights, type ParsedQueryOf } from '@testreport/contract';
import type { Principal } from '../authz/principal.js';
import type { Deps } from '../deps.js';
import { quantile, type BucketCount } from './buckets.js';
import { createInsightRepo, type CaseCounts, type WindowFilter } from './repo.js';

const DAY_MS = 86_400_000;
const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);
/** a ÷ b in percent with two decimals, as a run's passRate. */
const percent = (a: number, b: number) => Math.round((a / b) * 10_000) / 100;

function median(values: number[]): number | null {
  if (values.length === 0) return null;
  const s = [...values].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 === 1 ? s[mid] : Math.round(((s[mid - 1] + s[mid]) / 2) * 100) / 100;
}

/** Highest first by each key in turn, then by case id so equal figures list in a stable order. */
const byDesc = <T extends { caseId: string }>(...keys: ((x: T) => number)[]) => (a: T, b: T) => {
  for (const k of keys) if (k(a) !== k(b)) return k(b) - k(a);
  return a.caseId < b.caseId ? -1 : a.caseId > b.caseId ? 1 : 0;
};

/**
 * Insights over 7, 30 or 90 days (docs/insights.md "Insights"), read from the aggregates
 * insights/upkeep.ts keeps at ingestion, never from the results. Authorization: `read` on the
 * project (viewers included); another project's id answers 404 like an unknown one.
 */
export function createInsightService(deps: Deps) {
  const repo = createInsightRepo(deps.db);

  return {
    async get(principal: Principal, q: ParsedQueryOf<'insights'>): Promise<Insights> {
      await deps.authz.project(principal, q.projectId, 'read', 'param');
      const today = Date.parse(deps.config.now().toISOString().slice(0, 10));
      const to = dayOf(today);
      const from = dayOf(today - (q.days - 1) * DAY_MS);
      const before = dayOf(today - (2 * q.days - 1) * DAY_MS);
      const f: WindowFilter = { projectId: q.projectId, from, to, branch: q.branch, owner: q.owner };

      const [counts, days, histograms, runs] = await Promise.all([
        repo.caseCounts(f),
        repo.dayCounts(f),
        repo.histograms({ ...f, from: before }, from),
        repo.runs(f, `${from}T00:00:00.000Z`),
      ]);

      const trend = [];
      const runsByDay = new Map<string, { n: number; durations: number[] }>();
      for (const r of runs) {
        const d = r.created_at.slice(0, 10);
        let e = runsByDay.get(d);
        if (!e) runsByDay.set(d, (e = { n: 0, durations: [] }));
        e.n++;
        if (r.duration !== null) e.durations.push(r.duration);
      }
      for (let t = Date.parse(from); t <= today; t += DAY_MS) {
        const date = dayOf(t);
        const c = days.get(date);
        const r = runsByDay.get(date);
        trend.push({ date, runs: r?.n ?? 0, passRate: c && c.results > 0 ? percent(c.passed, c.results) : null, medianDuration: median(r?.durations ?? []) });
      }

      type Ran = CaseCounts & { ran: number; after: BucketCount[]; beforeH: BucketCount[] };
      const cases: Ran[] = counts.map((c) => ({ ...c, ran: c.results - c.skipped, after: histograms.get(c.caseId)?.after ?? [], beforeH: histograms.get(c.caseId)?.before ?? [] }));
      const ran = cases.filter((c) => c.ran > 0);

      const slowest = ran
        .map((c) => ({ ...c, p50: quantile(c.after, 0.5) ?? 0, p95: quantile(c.after, 0.95) ?? 0 }))
        .sort(byDesc((c) => c.p50, (c) => c.p95))
        .slice(0, q.limit);
      const mostFailing = ran
        .filter((c) => c.failed > 0)
        .map((c) => ({ ...c, failureRate: percent(c.failed, c.ran) }))
        .sort(byDesc((c) => c.failureRate, (c) => c.failed))
        .slice(0, q.limit);
      const flakiest = ran
        .filter((c) => c.flaky > 0)
        .map((c) => ({ ...c, flakyRate: percent(c.flaky, c.ran) }))
        .sort(byDesc((c) => c.flakyRate, (c) => c.flaky))
        .slice(0, q.limit);
      const regressions = ran
        .flatMap((c) => {
          const p50Before = quantile(c.beforeH, 0.5);
          const p50After = quantile(c.after, 0.5);
          if (p50Before === null || p50After === null) return [];
          const growth = p50After - p50Before;
          if (growth < REGRESSION_MIN_MS || growth < p50Before * REGRESSION_MIN_RATIO) return [];
          return [{ ...c, p50Before, p50After, change: p50Before > 0 ? percent(growth, p50Before) : 0 }];
        })
        .sort(byDesc((c) => c.change, (c) => c.p50After - c.p50Before))
        .slice(0, q.limit);

      const listed = [...slowest, ...mostFailing, ...flakiest, ...regressions];
      const { cases: names, existing } = await repo.names([...new Set(listed.map((c) => c.caseId))], [...new Set(listed.map((c) => c.latestTestId))]);
      // The newest result of the window names the case; when it was deleted since (DELETE /runs/:id)
      // the case's newest result anywhere stands in.
      const test = (c: Ran) => {
        const n = names.get(c.caseId);
        const testId = existing.has(c.latestTestId) ? c.latestTestId : n?.latest_test_id;
        if (!n || !testId) return null;
        return { testId, fullTitle: n.full_title, filePath: n.file_path === '' ? null : n.file_path, results: c.ran };
      };
      const present = <T extends Ran, U>(items: T[], figures: (c: T) => U) =>
        items.flatMap((c) => {
          const t = test(c);
          return t ? [{ ...t, ...figures(c) }] : [];
        });

      return {
        days: q.days,
        branch: q.branch ?? null,
        owner: q.owner ?? null,
        from,
        to,
        trend,
        slowest: present(slowest, (c) => ({ p50: c.p50, p95: c.p95 })),
        mostFailing: present(mostFailing, (c) => ({ failures: c.failed, failureRate: c.failureRate })),
        flakiest: present(flakiest, (c) => ({ flaky: c.flaky, flakyRate: c.flakyRate })),
        regressions: present(regressions, (c) => ({ p50Before: c.p50Before, p50After: c.p50After, change: c.change })),
      };
    },
  };
}
export type InsightService = ReturnType<typeof createInsightService>;
