import type { Principal } from '../authz/principal.js';
import type { Deps } from '../deps.js';
import { NotFoundError } from '../lib/errors.js';
import type { QuarantineEvent } from '@testreport/contract';

export interface CaseState {
  caseId: string;
  flakinessScore: number;
  totalRuns: number;
  flakyRuns: number;
  isQuarantined: boolean;
  quarantinedAt: string | null;
  /** Its quarantine changes, newest first (docs/decisions.md §13). */
  events: QuarantineEvent[];
}

/** The case behind a result: its flakiness score and quarantine state (the test page's header). */
export function createCaseStateService(deps: Deps, flakiness: { refresh(projectId: string, caseIds: string[]): Promise<void>; eventsOfCase(caseId: string): Promise<QuarantineEvent[]> }) {
  const read = (testId: string) =>
    deps.db
      .selectFrom('tests')
      .innerJoin('test_cases', 'test_cases.id', 'tests.case_id')
      .select(['tests.project_id', 'test_cases.id', 'test_cases.flakiness_score', 'test_cases.total_runs', 'test_cases.flaky_runs', 'test_cases.is_quarantined', 'test_cases.quarantined_at', 'test_cases.stats_dirty'])
      .where('tests.id', '=', testId)
      .executeTakeFirst();
  return {
    async ofTest(principal: Principal, testId: string): Promise<CaseState> {
      let row = await read(testId);
      if (!row) throw new NotFoundError('Test');
      await deps.authz.project(principal, row.project_id, 'read', 'resource', 'test');
      // A finish recomputes its cases after answering; a page opened before that must not show old stats.
      if (row.stats_dirty === 1) {
        await flakiness.refresh(row.project_id, [row.id]);
        row = (await read(testId)) ?? row;
      }
      return {
        caseId: row.id,
        flakinessScore: row.flakiness_score,
        totalRuns: row.total_runs,
        flakyRuns: row.flaky_runs,
        isQuarantined: row.is_quarantined === 1,
        quarantinedAt: row.quarantined_at,
        events: await flakiness.eventsOfCase(row.id),
      };
    },
  };
}
