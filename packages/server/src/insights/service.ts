import type { Insights, ParsedQueryOf } from '@testreport/contract';
import type { Principal } from '../authz/principal.js';
import type { Deps } from '../deps.js';

/** Insights over 7, 30 or 90 days (docs/insights.md "Insights"). Authorization: `read` on the project. */
export function createInsightService(deps: Deps) {
  return {
    async get(principal: Principal, q: ParsedQueryOf<'insights'>): Promise<Insights> {
      await deps.authz.project(principal, q.projectId, 'read', 'param');
      const to = deps.config.now().toISOString().slice(0, 10);
      return { days: q.days, branch: q.branch ?? null, owner: q.owner ?? null, from: to, to, trend: [], slowest: [], mostFailing: [], flakiest: [], regressions: [] };
    },
  };
}
export type InsightService = ReturnType<typeof createInsightService>;
