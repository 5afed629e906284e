import { SUMMARY_LIMITS, type RunSummaryResponse, type SummaryList } from '@testreport/contract';
import type { Principal } from '../authz/principal.js';
import type { Deps } from '../deps.js';
import { NotFoundError } from '../lib/errors.js';
import type { ProjectService } from '../projects/service.js';
import { createErrorGroupService, type FirstSeen } from '../errorGroups/service.js';
import { createRunComparison, type CaseOutcome } from './comparison.js';
import { resolveCounts } from './present.js';
import { createRunRepo, type RunRow } from './repo.js';

const ANSI = /\u001b\[[0-9;?]*[ -/]*[@-~]/g;
/** A summary shows one line of each error; the test's page has the rest. */
const ERROR_LINE_MAX = 500;

/** The first non-empty line of an error message without terminal colours, cut to ERROR_LINE_MAX characters. */
export function firstErrorLine(message: string | null): string | null {
  const line = (message ?? '').replace(ANSI, '').split('\n').map((l) => l.trim()).find((l) => l !== '');
  if (!line) return null;
  const chars = [...line];
  return chars.length <= ERROR_LINE_MAX ? line : `${chars.slice(0, ERROR_LINE_MAX - 1).join('')}…`;
}

/** `newError` / `errorFirstSeen` of a summary item, from where its error was first seen. */
export function errorNovelty(first: FirstSeen | undefined, runId: string) {
  if (!first) return { newError: false, errorFirstSeen: null };
  if (first.runId === runId) return { newError: true, errorFirstSeen: null };
  return { newError: false, errorFirstSeen: { runId: first.runId, commitSha: first.commitSha, branch: first.branch, at: first.at, runs: first.runs } };
}

/**
 * The summary of a run that CI jobs, pull-request comments and chat messages show: counts, failures,
 * what is new or fixed against the base branch (the one comparison of `comparison.ts`, also behind
 * the dashboard's run page), flaky tests and quarantined failures, each list cut to `limit` with its
 * total. `base` defaults to the project's default branch. Authorization: `read` on the run's project.
 */
export function createRunSummaries(deps: Deps, projects: Pick<ProjectService['internal'], 'defaultBranch'>) {
  const runs = createRunRepo(deps.db);
  const comparison = createRunComparison(deps);
  const errorGroups = createErrorGroupService(deps);

  async function build(row: RunRow, base: string | undefined, limit: number): Promise<RunSummaryResponse> {
    // Read per call: with port 0 the address is known only once the server listens.
    const appUrl = deps.config.publicUrl;
    const branch = base ?? (await projects.defaultBranch(row.project_id));
    const [counts, facts] = await Promise.all([runs.derivedCounts(row), comparison.factsOf(row, branch)]);
    const quarantined = facts.quarantinedCases;
    const firstSeen = await errorGroups.firstSeenOf(row.project_id, [...new Set(facts.failures.map((f) => f.errorFingerprint).filter((fp): fp is string => fp !== null))]);
    const seen = (t: CaseOutcome): FirstSeen | undefined => (t.status === 'failed' && t.errorFingerprint ? firstSeen.get(t.errorFingerprint) : undefined);
    const list = (all: CaseOutcome[]): SummaryList => ({
      total: all.length,
      items: all.slice(0, limit).map((t) => ({
        testId: t.testId, title: t.title, fullTitle: t.fullTitle, filePath: t.filePath, status: t.status,
        error: t.status === 'failed' ? firstErrorLine(t.errorMessage) : null,
        ...errorNovelty(seen(t), row.id),
        quarantined: quarantined.has(t.caseId), owners: t.owners, url: `${appUrl}/tests/${t.testId}`,
      })),
    });
    const baseRun = facts.comparison.baseRun;
    return {
      run: {
        id: row.id, projectId: row.project_id, status: row.status as RunSummaryResponse['run']['status'], branch: row.branch, commitSha: row.commit_sha,
        commitMessage: row.commit_message, ciProvider: row.ci_provider, ciBuildId: row.ci_build_id, ciBuildUrl: row.ci_build_url, runTitle: row.run_title,
        ...resolveCounts(row, counts), duration: row.duration, createdAt: row.created_at, url: `${appUrl}/runs/${row.id}`,
      },
      base: { branch, run: baseRun ? { id: baseRun.id, status: baseRun.status, createdAt: baseRun.createdAt, url: `${appUrl}/runs/${baseRun.id}` } : null },
      failed: list(facts.failures),
      // Without a run to compare with nothing is "new": every failure would be, which says nothing.
      newFailures: list(baseRun ? facts.comparison.newFailures : []),
      fixed: list(facts.comparison.fixed),
      flaky: list(facts.flaky),
      quarantinedFailures: list(facts.failures.filter((f) => quarantined.has(f.caseId))),
    };
  }

  return {
    async get(principal: Principal, runId: string, q: { base?: string; limit?: number } = {}): Promise<RunSummaryResponse> {
      const row = await runs.find(runId);
      if (!row) throw new NotFoundError('Run');
      await deps.authz.project(principal, row.project_id, 'read', 'resource', 'run');
      return build(row, q.base, q.limit ?? SUMMARY_LIMITS.listDefault);
    },

    /** For system callers that hold the run already (a webhook's chat message): no principal, never behind a route. */
    async ofRun(runId: string, limit: number): Promise<RunSummaryResponse | null> {
      const row = await runs.find(runId);
      return row ? build(row, undefined, limit) : null;
    },
  };
}
export type RunSummaryService = ReturnType<typeof createRunSummaries>;
