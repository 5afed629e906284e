import type { Principal } from '../authz/principal.js';
import type { Deps } from '../deps.js';
import { NotFoundError } from '../lib/errors.js';
import { createInsightsRepo, type CaseOutcome } from './insightsRepo.js';

/** A case's result as the comparison shows it; the dashboard takes the type from here, not the repo. */
export type { CaseOutcome };

const ANSI = /\u001b\[[0-9;?]*[ -/]*[@-~]/g;

/**
 * The key failures are grouped by: the message's first non-empty line without colours, with the
 * parts that differ between otherwise identical failures (temp dir paths, numbers, hex ids, quoted
 * values) masked.
 */
export function normaliseError(message: string | null): string {
  const line = (message ?? '').replace(ANSI, '').split('\n').map((l) => l.trim()).find((l) => l !== '') ?? '';
  if (!line) return '(no error message)';
  return line
    // Temp dirs differ on every run (mkdtemp suffixes); the rest of the path is noise then too.
    .replace(/(?:\/private)?\/(?:tmp|var\/folders)\/[^\s"'`]*|[A-Za-z]:\\Users\\[^\\\s]+\\AppData\\Local\\Temp\\[^\s"'`]*/g, '<tmp>')
    .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi, '<id>')
    .replace(/\b0x[0-9a-f]+\b|\b[0-9a-f]{12,}\b/gi, '<hex>')
    .replace(/"[^"]*"|'[^']*'|`[^`]*`/g, '"…"')
    .replace(/\d+(\.\d+)?/g, 'N')
    .slice(0, 300);
}

export interface ErrorGroup {
  key: string;
  /** The first member's message, as an example of the group. */
  example: string;
  count: number;
  tests: CaseOutcome[];
}

/** Failures grouped by normalised message, biggest group first. */
export function groupFailures(failures: CaseOutcome[]): ErrorGroup[] {
  const groups = new Map<string, ErrorGroup>();
  for (const f of failures) {
    const key = normaliseError(f.errorMessage);
    let g = groups.get(key);
    if (!g) groups.set(key, (g = { key, example: (f.errorMessage ?? '').replace(ANSI, '').trim(), count: 0, tests: [] }));
    g.count++;
    g.tests.push(f);
  }
  return [...groups.values()].sort((a, b) => b.count - a.count || a.key.localeCompare(b.key));
}

export interface RunComparison {
  /** The run compared against: the newest finished run on the base branch created before this one. */
  baseRun: { id: string; branch: string | null; status: string; createdAt: string } | null;
  /** Failing now, not failing in the base run (or absent from it). */
  newFailures: CaseOutcome[];
  /** Failing in the base run, passed or flaky now. */
  fixed: CaseOutcome[];
  /** Failing in both. */
  stillFailing: CaseOutcome[];
}

export const FAILING = 'failed';
export const GOOD = new Set(['passed', 'flaky']);

/**
 * Run-level insights shared by the dashboard and, later, the CLI summary and chat messages: what is
 * new since the last finished run, and failures grouped by error. Authorization: `read` on the run's project.
 *
 * Everything here reads a run's failing and flaky results and the base run's failing ones, never
 * every result of the run: a run of 50,000 tests costs what its failures cost (issue 30).
 */
export function createRunComparison(deps: Deps) {
  const repo = createInsightsRepo(deps.db);

  async function readableRun(principal: Principal, runId: string) {
    const run = await deps.db.selectFrom('runs').select(['id', 'project_id', 'branch']).where('id', '=', runId).executeTakeFirst();
    if (!run) throw new NotFoundError('Run');
    await deps.authz.project(principal, run.project_id, 'read', 'resource', 'run');
    return run;
  }

  /** `failures`: the run's newest failing results, when the caller has read them already. */
  async function compareWith(run: { id: string; project_id: string; branch: string | null }, failures: CaseOutcome[], baseBranch?: string | null): Promise<RunComparison> {
    const base = await repo.previousFinished(run.project_id, baseBranch === undefined ? run.branch : baseBranch, run.id);
    // Without a base run every failure is new and nothing is fixed.
    if (!base) return { baseRun: null, newFailures: failures, stillFailing: [], fixed: [] };
    const failingBefore = new Set((await repo.newestWithStatus(base.id, [FAILING])).map((f) => f.caseId));
    // Fixed: failing in the base run, passed or flaky now (absent now is neither).
    const now = await repo.newestOfCases(run.id, [...failingBefore]);
    const fixed = await repo.outcomesOf([...now.values()].filter((r) => GOOD.has(r.status)).map((r) => r.id));
    return {
      baseRun: { id: base.id, branch: base.branch, status: base.status, createdAt: base.created_at },
      newFailures: failures.filter((f) => !failingBefore.has(f.caseId)),
      stillFailing: failures.filter((f) => failingBefore.has(f.caseId)),
      fixed,
    };
  }

  const failuresOf = (runId: string) => repo.newestWithStatus(runId, [FAILING]);
  const flakyOf = (runId: string) => repo.newestWithStatus(runId, ['flaky']);

  return {
    /** Compares a run with the previous finished run on `baseBranch` (default: the run's own branch). */
    async compare(principal: Principal, runId: string, opts: { baseBranch?: string | null } = {}): Promise<RunComparison> {
      const run = await readableRun(principal, runId);
      return compareWith(run, await failuresOf(run.id), opts.baseBranch);
    },

    /** Everything the run page shows about failures. */
    async summary(principal: Principal, runId: string): Promise<{ groups: ErrorGroup[]; comparison: RunComparison; flaky: CaseOutcome[] }> {
      const run = await readableRun(principal, runId);
      const [failures, flaky] = await Promise.all([failuresOf(run.id), flakyOf(run.id)]);
      return { groups: groupFailures(failures), comparison: await compareWith(run, failures), flaky };
    },

    /** The run's failures (newest attempt of each test) grouped by normalised error message. */
    async errorGroups(principal: Principal, runId: string): Promise<ErrorGroup[]> {
      const run = await readableRun(principal, runId);
      return groupFailures(await failuresOf(run.id));
    },

    /**
     * The failures, flaky tests and comparison with `baseBranch` of a run the caller has already
     * authorized (run summaries, chat messages): no principal, so never behind a route by itself.
     */
    async factsOf(run: { id: string; project_id: string; branch: string | null }, baseBranch: string | null) {
      const [failures, flaky] = await Promise.all([failuresOf(run.id), flakyOf(run.id)]);
      const comparison = await compareWith(run, failures, baseBranch);
      return { failures, flaky, comparison, quarantinedCases: await repo.quarantinedOf(failures.map((f) => f.caseId)) };
    },

    /**
     * The run's failing tests (newest attempt of each), in suite order, for system callers that
     * already hold the run (a webhook's chat message): no principal, so never behind a route.
     */
    async failuresOf(runId: string): Promise<CaseOutcome[]> {
      return failuresOf(runId);
    },

    /** Tests that were flaky in this run (passed after a retry). */
    async flaky(principal: Principal, runId: string): Promise<CaseOutcome[]> {
      const run = await readableRun(principal, runId);
      return flakyOf(run.id);
    },
  };
}
export type RunComparisonService = ReturnType<typeof createRunComparison>;
