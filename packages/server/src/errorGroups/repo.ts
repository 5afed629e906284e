import { sql } from 'kysely';
import type { Db } from '../db/database.js';
import { chunk } from '../db/batch.js';
import { likePattern } from '../db/text.js';
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

/**
 * Error groups are results grouped by `error_fingerprint` (partial index tests_project_fingerprint,
 * migration 014). Ids are time-ordered, so min(id) is the first occurrence and max(id) the last.
 */
export function createErrorGroupRepo(db: Db) {
  const occurrences = (f: OccurrenceFilters) => {
    let q = db.selectFrom('tests').where('project_id', '=', f.projectId).where('error_fingerprint', 'is not', null);
    if (f.since) q = q.where('created_at', '>=', f.since);
    if (f.until) q = q.where('created_at', '<', f.until);
    if (f.branch) q = q.where('branch', '=', f.branch);
    if (f.owner) q = q.where(ownedBy(f.owner));
    if (f.q) q = q.where(sql<boolean>`lower(error_message) like lower(${likePattern(f.q)}) escape '\\'`);
    return q;
  };
  const aggregates = (f: OccurrenceFilters) =>
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

  return {
    async list(f: OccurrenceFilters, limit: number, offset: number): Promise<{ groups: GroupRow[]; total: number }> {
      const [rows, total] = await Promise.all([
        aggregates(f).orderBy(sql`max(id)`, 'desc').limit(limit).offset(offset).execute(),
        occurrences(f).select((eb) => eb.fn.count<number>('error_fingerprint').distinct().as('n')).executeTakeFirstOrThrow(),
      ]);
      return { groups: rows.map(toGroup), total: Number(total.n) };
    },

    async one(f: OccurrenceFilters, fingerprint: string): Promise<GroupRow | undefined> {
      const row = await aggregates(f).where('error_fingerprint', '=', fingerprint).executeTakeFirst();
      return row ? toGroup(row) : undefined;
    },

    /** First occurrence and count of runs of each fingerprint over the project's retained history. */
    async firstSeen(projectId: string, fingerprints: string[]): Promise<Map<string, { firstId: string; runs: number }>> {
      const out = new Map<string, { firstId: string; runs: number }>();
      for (const fps of chunk(fingerprints, 500)) {
        if (fps.length === 0) continue;
        const rows = await aggregates({ projectId }).where('error_fingerprint', 'in', fps).execute();
        for (const r of rows) out.set(r.error_fingerprint!, { firstId: r.first_id, runs: Number(r.runs) });
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
      const day = sql<string>`substr(created_at, 1, 10)`;
      const rows = await occurrences(f)
        .where('error_fingerprint', 'in', fingerprints)
        .select((eb) => ['error_fingerprint', day.as('date'), eb.fn.countAll<number>().as('n')])
        .groupBy(['error_fingerprint', day])
        .orderBy(day)
        .execute();
      return rows.map((r) => ({ fingerprint: r.error_fingerprint!, date: r.date, occurrences: Number(r.n) }));
    },

    /** The test cases a group hit, most occurrences first, with each case's newest result. */
    async testCases(f: OccurrenceFilters, fingerprint: string, limit: number) {
      const rows = await occurrences(f)
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
