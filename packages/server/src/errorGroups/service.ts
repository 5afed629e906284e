import type { ErrorGroup, ErrorGroupDetail, ParsedQueryOf } from '@testreport/contract';
import type { Principal } from '../authz/principal.js';
import type { Deps } from '../deps.js';
import { NotFoundError } from '../lib/errors.js';
import { firstErrorLine } from '../runs/summary.js';
import { createErrorGroupRepo, type GroupRow, type OccurrenceFilters, type SightingRow } from './repo.js';

const TEST_CASES_MAX = 200;

const sighting = (r: SightingRow) => ({ runId: r.run_id, testId: r.id, commitSha: r.commit_sha, branch: r.branch, at: r.created_at });

/** Where an error was first seen in the project (over everything retained), for run summaries and the run page. */
export interface FirstSeen {
  runId: string;
  testId: string;
  commitSha: string | null;
  branch: string | null;
  at: string;
  /** Runs it occurred in. */
  runs: number;
}

/**
 * Error groups across runs (docs/decisions.md §13): results with the same fingerprint, counted over the
 * occurrences that match the filters. Authorization: `read` on the project (viewers included).
 */
export function createErrorGroupService(deps: Deps) {
  const repo = createErrorGroupRepo(deps.db);

  async function present(groups: GroupRow[]): Promise<ErrorGroup[]> {
    const seen = await repo.sightings(groups.flatMap((g) => [g.firstId, g.lastId]));
    return groups.map((g) => {
      const first = seen.get(g.firstId)!;
      const last = seen.get(g.lastId)!;
      return {
        fingerprint: g.fingerprint, message: firstErrorLine(last.error_message) ?? '', filePath: last.file_path,
        occurrences: g.occurrences, tests: g.tests, runs: g.runs, firstSeen: sighting(first), lastSeen: sighting(last),
      };
    });
  }

  return {
    async list(principal: Principal, q: ParsedQueryOf<'errors.list'>) {
      await deps.authz.project(principal, q.projectId, 'read', 'param');
      const { limit, offset, ...filters } = q;
      const { groups, total } = await repo.list(filters, limit, offset);
      return { data: await present(groups), total, limit, offset };
    },

    async get(principal: Principal, fingerprint: string, q: ParsedQueryOf<'errors.get'>): Promise<ErrorGroupDetail> {
      await deps.authz.project(principal, q.projectId, 'read', 'param');
      const row = await repo.one(q, fingerprint);
      if (!row) throw new NotFoundError('Error group');
      const [[group], daily, testCases] = await Promise.all([present([row]), repo.daily(q, [fingerprint]), repo.testCases(q, fingerprint, TEST_CASES_MAX)]);
      return { ...group, daily: daily.map(({ date, occurrences }) => ({ date, occurrences })), testCases };
    },

    /** Daily occurrences of several groups, for the dashboard's sparklines. Callers have authorized the project. */
    async dailyOf(filters: OccurrenceFilters, fingerprints: string[]) {
      return repo.daily(filters, fingerprints);
    },

    /**
     * Where each fingerprint was first seen in the project: for run summaries and the run page of a
     * run the caller may read (no principal, never behind a route by itself).
     */
    async firstSeenOf(projectId: string, fingerprints: string[]): Promise<Map<string, FirstSeen>> {
      const firsts = await repo.firstSeen(projectId, fingerprints);
      const rows = await repo.sightings([...firsts.values()].map((f) => f.firstId));
      const out = new Map<string, FirstSeen>();
      for (const [fp, f] of firsts) out.set(fp, { ...sighting(rows.get(f.firstId)!), runs: f.runs });
      return out;
    },
  };
}
export type ErrorGroupService = ReturnType<typeof createErrorGroupService>;
