import type { SearchField } from '@testreport/contract';
import type { SelectQueryBuilder } from 'kysely';
import type { Db } from '../db/database.js';
import { chunk } from '../db/batch.js';
import { RESULT_SEARCH_COLUMNS, searchCases, searchOfManyCases, searchResults } from '../db/search.js';
import type { Database } from '../db/schema.js';

/** `total` of a search counts matches up to this (docs/insights.md "Search"). */
export const SEARCH_TOTAL_CAP = 1_000;
/**
 * Up to this many matching test cases, each case's newest results are read from the case index and
 * merged; with more, matches are dense enough among the newest results that walking those is faster.
 */
const FEW_CASES = 64;

export interface SearchFilters {
  projectId: string;
  q: string;
  in: SearchField[];
  since?: string;
  branch?: string;
}

const SELECTED = ['tests.id', 'tests.run_id', 'tests.title', 'tests.full_title', 'tests.file_path', 'tests.status', 'tests.branch', 'tests.commit_sha', 'tests.created_at', 'tests.error_message', 'tests.stdout', 'tests.stderr'] as const;

/**
 * Results whose title, error message or output contains the text, answered from the text index
 * (db/search.ts): titles through the matching test cases, errors and output through the results'
 * own index. Each source lists its newest matches (ids are time-ordered) up to what the page and the
 * capped total need; the union, newest first, is the answer. Deleted results are gone from the
 * index with their rows, so only what retention kept is found.
 */
export function createSearchRepo(db: Db) {
  const filtered = <Q extends SelectQueryBuilder<Database, 'tests', any>>(q: Q, f: SearchFilters): Q => {
    let out = q.where('tests.project_id', '=', f.projectId);
    if (f.since) out = out.where('tests.created_at', '>=', f.since);
    if (f.branch) out = out.where('tests.branch', '=', f.branch);
    return out as Q;
  };

  /** The newest `n` results of cases whose title contains the text. */
  async function byTitle(f: SearchFilters, n: number): Promise<string[]> {
    const cases = searchCases(db, f.projectId, f.q);
    const few = (await cases.limit(FEW_CASES + 1).execute()).map((c) => c.id);
    if (few.length === 0) return [];
    if (few.length > FEW_CASES) {
      const rows = await filtered(db.selectFrom('tests'), f).where(searchOfManyCases(db, cases)).select('tests.id').orderBy('tests.id', 'desc').limit(n).execute();
      return rows.map((r) => r.id);
    }
    const newest = (caseId: string, i: number) =>
      db.selectFrom(filtered(db.selectFrom('tests'), f).where('tests.case_id', '=', caseId).select('tests.id').orderBy('tests.id', 'desc').limit(n).as(`c${i}`)).select('id');
    const [first, ...rest] = few.map(newest);
    const union = rest.reduce((u, q) => u.unionAll(q), first);
    const rows = await db.selectFrom(union.as('u')).select('u.id').orderBy('u.id', 'desc').limit(n).execute();
    return rows.map((r) => r.id);
  }

  /** The newest `n` results whose error message or output (as asked) contains the text. */
  async function byText(f: SearchFilters, n: number): Promise<string[]> {
    const columns = f.in.flatMap((field) => (field === 'titles' ? [] : RESULT_SEARCH_COLUMNS[field]));
    if (columns.length === 0) return [];
    const { rows, newestFirst: order } = searchResults(db, columns, f.q);
    return (await filtered(rows, f).select('tests.id').orderBy(order, 'desc').limit(n).execute()).map((r) => r.id);
  }

  return {
    async page(f: SearchFilters, limit: number, offset: number) {
      // A common text (a word of most titles) matches millions of results: each source reads no
      // more than the page and the capped count need, as GET /tests's count stops at its cap.
      const n = Math.max(offset + limit, SEARCH_TOTAL_CAP);
      const [titled, texted] = await Promise.all([f.in.includes('titles') ? byTitle(f, n) : [], byText(f, n)]);
      const ids = [...new Set([...titled, ...texted])].sort(newestFirst);
      const pageIds = ids.slice(offset, offset + limit);
      const byId = new Map<string, Awaited<ReturnType<typeof rowsOf>>[number]>();
      for (const part of chunk(pageIds, 500)) for (const r of await rowsOf(part)) byId.set(r.id, r);
      return { rows: pageIds.map((id) => byId.get(id)!).filter(Boolean), total: Math.min(ids.length, SEARCH_TOTAL_CAP) };
    },
  };

  function rowsOf(ids: string[]) {
    return db.selectFrom('tests').select(SELECTED).where('tests.id', 'in', ids.length ? ids : ['']).execute();
  }
}

const newestFirst = (a: string, b: string) => (a < b ? 1 : a > b ? -1 : 0);

export type SearchRow = Awaited<ReturnType<ReturnType<typeof createSearchRepo>['page']>>['rows'][number];
