import { sql, type ExpressionBuilder, type SelectQueryBuilder } from 'kysely';
import type { Db } from '../db/database.js';
import { chunk } from '../db/batch.js';
import { SEARCH_MIN_CHARS } from '@testreport/contract';
import { searchResults } from '../db/search.js';
import type { Database } from '../db/schema.js';
import { containsIgnoringCase } from '../db/text.js';
import { ownedBy } from '../owners/filter.js';

export interface OccurrenceFilters {
  projectId: string;
  since?: string;
  until?: string;
  branch?: string;
  q?: string;
  /** Only results this CODEOWNERS owner owned when stored (their `owners` column). */
  owner?: string;
}

export interface GroupRow {
  fingerprint: string;
  occurrences: number;
  tests: number;
  runs: number;
  firstId: string;
  lastId: string;
}

/** One stored result with an error, as a group's first or last sighting. */
export interface SightingRow {
  id: string;
  run_id: string;
  commit_sha: string | null;
  branch: string | null;
  created_at: string;
  error_message: string | null;
  file_path: string | null;
  full_title: string;
}

/** Midnight UTC, the form `timestampInput` gives (`2026-11-11T00:00:00.000Z`). */
const MIDNIGHT = 'T00:00:00.000Z';
const dayAligned = (t: string | undefined) => t === undefined || t.endsWith(MIDNIGHT);

/**
 * Whether the aggregates (errorGroups/upkeep.ts) answer these filters exactly: they count per UTC
 * day and branch, so `since`/`until` at midnight UTC (or absent) and `branch` are theirs; a text
 * (`q`), an owner or a bound inside a day needs the occurrences themselves.
 */
export const aggregatesAnswer = (f: OccurrenceFilters) => !f.q && !f.owner && dayAligned(f.since) && dayAligned(f.until);

/**
 * Error groups are results grouped by `error_fingerprint`. Ids are time-ordered, so the min id is
 * the first occurrence and the max the last. Most reads come from the aggregates kept at ingestion
 * (errorGroups/upkeep.ts): the list and a group without time bounds from error_group_totals, with
 * day-aligned bounds from error_group_runs and error_group_cases; filters they cannot answer
 * exactly scan the failures (partial index tests_project_fingerprint, migration 014), with the same answer.
 */
export function createErrorGroupRepo(db: Db, via: 'auto' | 'scan' = 'auto') {
  /** `via: 'scan'` answers everything from the occurrences: the known truth the aggregates' tests compare with. */
  const aggregated = (f: OccurrenceFilters) => via === 'auto' && aggregatesAnswer(f);
  // A text of three or more characters is found through the search index of error messages
  // (db/search.ts: FTS5 trigrams, pg_trgm), so the cost follows its matches rather than every
  // failure kept (a scan of the failures' rows took 1 s at 10,000,000 results); a shorter one,
  // which trigrams cannot find, is compared on every failure in the filters.
  const occurrences = (f: OccurrenceFilters) => {
    const indexed = f.q !== undefined && f.q.length >= SEARCH_MIN_CHARS;
    let q = (indexed ? searchResults(db, ['error_message'], f.q!).rows : db.selectFrom('tests')) as SelectQueryBuilder<Database, 'tests', object>;
    q = q.where('tests.project_id', '=', f.projectId).where('tests.error_fingerprint', 'is not', null);
    if (f.since) q = q.where('tests.created_at', '>=', f.since);
    if (f.until) q = q.where('tests.created_at', '<', f.until);
    if (f.branch) q = q.where('tests.branch', '=', f.branch);
    if (f.owner) q = q.where(ownedBy(f.owner));
    if (f.q && !indexed) q = q.where(containsIgnoringCase('tests.error_message', f.q));
    return q;
  };
  const scanned = (f: OccurrenceFilters) =>
    occurrences(f)
      .select((eb) => [
        'error_fingerprint',
        eb.fn.countAll<number>().as('n'),
        eb.fn.count<number>('case_id').distinct().as('tests'),
        eb.fn.count<number>('run_id').distinct().as('runs'),
        eb.fn.min<string>('id').as('first_id'),
        eb.fn.max<string>('id').as('last_id'),
      ])
      .groupBy('error_fingerprint');
  const toGroup = (r: { error_fingerprint: string | null; n: number; tests: number; runs: number; first_id: string; last_id: string }): GroupRow => ({
    fingerprint: r.error_fingerprint!, occurrences: Number(r.n), tests: Number(r.tests), runs: Number(r.runs), firstId: r.first_id, lastId: r.last_id,
  });

  // The aggregates' rows matching day-aligned filters (a day is the first 10 characters of a bound);
  // both tables have the (project_id, day, branch) columns these name.
  const dayFilters = (f: OccurrenceFilters) => (eb: ExpressionBuilder<any, any>) =>
    eb.and([
      eb('project_id', '=', f.projectId),
      ...(f.since ? [eb('day', '>=', f.since.slice(0, 10))] : []),
      ...(f.until ? [eb('day', '<', f.until.slice(0, 10))] : []),
      ...(f.branch ? [eb('branch', '=', f.branch)] : []),
    ]);
  const runRows = (f: OccurrenceFilters) => db.selectFrom('error_group_runs').where(dayFilters(f));
  const caseRows = (f: OccurrenceFilters) => db.selectFrom('error_group_cases').where(dayFilters(f));
  const summed = (f: OccurrenceFilters) =>
    runRows(f)
      .select((eb) => [
        'fingerprint',
        eb.fn.sum<number>('occurrences').as('n'),
        eb.fn.count<number>('run_id').distinct().as('runs'),
        eb.fn.min<string>('first_id').as('first_id'),
        eb.fn.max<string>('last_id').as('last_id'),
      ])
      .groupBy('fingerprint');
  /** Groups from the aggregates: runs, occurrences, first and last from the run rows, distinct tests from the case rows. */
  async function fromAggregates(f: OccurrenceFilters, rows: { fingerprint: string; n: number; runs: number; first_id: string; last_id: string }[]): Promise<GroupRow[]> {
    const tests = new Map<string, number>();
    for (const fps of chunk(rows.map((r) => r.fingerprint), 500)) {
      if (fps.length === 0) continue;
      const counted = await caseRows(f).where('fingerprint', 'in', fps).select((eb) => ['fingerprint', eb.fn.count<number>('case_id').distinct().as('n')]).groupBy('fingerprint').execute();
      for (const c of counted) tests.set(c.fingerprint, Number(c.n));
    }
    return rows.map((r) => toGroup({ error_fingerprint: r.fingerprint, n: r.n, tests: tests.get(r.fingerprint) ?? 0, runs: r.runs, first_id: r.first_id, last_id: r.last_id }));
  }

  // Without time bounds, the totals answer (scope '' for every branch, else the branch's own).
  const totalsAnswer = (f: OccurrenceFilters) => aggregated(f) && !f.since && !f.until;
  const totals = (f: OccurrenceFilters) => db.selectFrom('error_group_totals').where('project_id', '=', f.projectId).where('branch', '=', f.branch ?? '');
  const fromTotals = (r: { fingerprint: string; occurrences: number; tests: number; runs: number; first_id: string; last_id: string }) =>
    toGroup({ error_fingerprint: r.fingerprint, n: r.occurrences, tests: r.tests, runs: r.runs, first_id: r.first_id, last_id: r.last_id });
  const TOTALS = ['fingerprint', 'occurrences', 'tests', 'runs', 'first_id', 'last_id'] as const;

  return {
    async list(f: OccurrenceFilters, limit: number, offset: number): Promise<{ groups: GroupRow[]; total: number }> {
      if (totalsAnswer(f)) {
        const [rows, total] = await Promise.all([
          totals(f).select(TOTALS).orderBy('last_id', 'desc').limit(limit).offset(offset).execute(),
          totals(f).select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
        ]);
        return { groups: rows.map(fromTotals), total: Number(total.n) };
      }
      if (!aggregated(f)) {
        const [rows, total] = await Promise.all([
          scanned(f).orderBy(sql`max(id)`, 'desc').limit(limit).offset(offset).execute(),
          occurrences(f).select((eb) => eb.fn.count<number>('error_fingerprint').distinct().as('n')).executeTakeFirstOrThrow(),
        ]);
        return { groups: rows.map(toGroup), total: Number(total.n) };
      }
      const [rows, total] = await Promise.all([
        summed(f).orderBy(sql`max(last_id)`, 'desc').limit(limit).offset(offset).execute(),
        runRows(f).select((eb) => eb.fn.count<number>('fingerprint').distinct().as('n')).executeTakeFirstOrThrow(),
      ]);
      return { groups: await fromAggregates(f, rows), total: Number(total.n) };
    },

    async one(f: OccurrenceFilters, fingerprint: string): Promise<GroupRow | undefined> {
      if (!aggregated(f)) {
        const row = await scanned(f).where('error_fingerprint', '=', fingerprint).executeTakeFirst();
        return row ? toGroup(row) : undefined;
      }
      if (totalsAnswer(f)) {
        const total = await totals(f).select(TOTALS).where('fingerprint', '=', fingerprint).executeTakeFirst();
        return total ? fromTotals(total) : undefined;
      }
      const row = await summed(f).where('fingerprint', '=', fingerprint).executeTakeFirst();
      return row ? (await fromAggregates(f, [row]))[0] : undefined;
    },

    /** First occurrence and count of runs of each fingerprint over the project's retained history. */
    async firstSeen(projectId: string, fingerprints: string[]): Promise<Map<string, { firstId: string; runs: number }>> {
      const out = new Map<string, { firstId: string; runs: number }>();
      for (const fps of chunk(fingerprints, 500)) {
        if (fps.length === 0) continue;
        const rows = aggregated({ projectId })
          ? (await totals({ projectId }).select(TOTALS).where('fingerprint', 'in', fps).execute()).map((r) => ({ fp: r.fingerprint, first: r.first_id, runs: r.runs }))
          : (await scanned({ projectId }).where('error_fingerprint', 'in', fps).execute()).map((r) => ({ fp: r.error_fingerprint!, first: r.first_id, runs: r.runs }));
        for (const r of rows) out.set(r.fp, { firstId: r.first, runs: Number(r.runs) });
      }
      return out;
    },

    async sightings(ids: string[]): Promise<Map<string, SightingRow>> {
      const out = new Map<string, SightingRow>();
      for (const part of chunk([...new Set(ids)], 500)) {
        if (part.length === 0) continue;
        const rows = await db.selectFrom('tests').select(['id', 'run_id', 'commit_sha', 'branch', 'created_at', 'error_message', 'file_path', 'full_title']).where('id', 'in', part).execute();
        for (const r of rows) out.set(r.id, r);
      }
      return out;
    },

    /** Occurrences per UTC day (ISO timestamps: the day is the first 10 characters). */
    async daily(f: OccurrenceFilters, fingerprints: string[]): Promise<{ fingerprint: string; date: string; occurrences: number }[]> {
      if (fingerprints.length === 0) return [];
      if (aggregated(f)) {
        const rows = await runRows(f)
          .where('fingerprint', 'in', fingerprints)
          .select((eb) => ['fingerprint', 'day', eb.fn.sum<number>('occurrences').as('n')])
          .groupBy(['fingerprint', 'day'])
          .orderBy('day')
          .orderBy('fingerprint')
          .execute();
        return rows.map((r) => ({ fingerprint: r.fingerprint, date: r.day, occurrences: Number(r.n) }));
      }
      const day = sql<string>`substr(created_at, 1, 10)`;
      const rows = await occurrences(f)
        .where('error_fingerprint', 'in', fingerprints)
        .select((eb) => ['error_fingerprint', day.as('date'), eb.fn.countAll<number>().as('n')])
        .groupBy(['error_fingerprint', day])
        .orderBy(day)
        .orderBy('error_fingerprint')
        .execute();
      return rows.map((r) => ({ fingerprint: r.error_fingerprint!, date: r.date, occurrences: Number(r.n) }));
    },

    /** The test cases a group hit, most occurrences first, with each case's newest result. */
    async testCases(f: OccurrenceFilters, fingerprint: string, limit: number) {
      const rows = aggregated(f)
        ? await caseRows(f)
          .where('fingerprint', '=', fingerprint)
          .select((eb) => ['case_id', eb.fn.sum<number>('occurrences').as('n'), eb.fn.max<string>('last_id').as('last_id')])
          .groupBy('case_id')
          .orderBy(sql`sum(occurrences)`, 'desc')
          .orderBy(sql`max(last_id)`, 'desc')
          .limit(limit)
          .execute()
        : await occurrences(f)
          .where('error_fingerprint', '=', fingerprint)
          .select((eb) => ['case_id', eb.fn.countAll<number>().as('n'), eb.fn.max<string>('id').as('last_id')])
          .groupBy('case_id')
          .orderBy(sql`count(*)`, 'desc')
          .orderBy(sql`max(id)`, 'desc')
          .limit(limit)
          .execute();
      const last = await this.sightings(rows.map((r) => r.last_id));
      return rows.map((r) => ({ testId: r.last_id, fullTitle: last.get(r.last_id)!.full_title, filePath: last.get(r.last_id)!.file_path, occurrences: Number(r.n), lastRunId: last.get(r.last_id)!.run_id }));
    },
  };
}
export type ErrorGroupRepo = ReturnType<typeof createErrorGroupRepo>;
