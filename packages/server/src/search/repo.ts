import type { SearchField } from '@testreport/contract';
import type { Db } from '../db/database.js';
import { SEARCH_COLUMNS, searchMatching } from '../db/search.js';

/** `total` of a search counts matches up to this (docs/insights.md "Search"). */
export const SEARCH_TOTAL_CAP = 1_000;

export interface SearchFilters {
  projectId: string;
  q: string;
  in: SearchField[];
  since?: string;
  branch?: string;
}

/**
 * Results whose searched columns contain the text, answered from the text index (db/search.ts).
 * Ids are time-ordered, so newest first is `id desc`. Deleted results are gone from the index with
 * their rows, so only what retention kept is found.
 */
export function createSearchRepo(db: Db) {
  const matching = (f: SearchFilters) => {
    const { rows, newestFirst } = searchMatching(db, f.in.flatMap((field) => SEARCH_COLUMNS[field]), f.q);
    let q = rows.where('tests.project_id', '=', f.projectId);
    if (f.since) q = q.where('tests.created_at', '>=', f.since);
    if (f.branch) q = q.where('tests.branch', '=', f.branch);
    return { q, newestFirst };
  };

  return {
    async page(f: SearchFilters, limit: number, offset: number) {
      const { q, newestFirst } = matching(f);
      // A common text (a word of most titles) matches millions of results: the count stops at the
      // cap, as GET /tests's does, so it reads no more matches than a page near it would.
      const capped = q.select('tests.id').limit(SEARCH_TOTAL_CAP);
      const [rows, total] = await Promise.all([
        q
          .select(['tests.id', 'tests.run_id', 'tests.title', 'tests.full_title', 'tests.file_path', 'tests.status', 'tests.branch', 'tests.commit_sha', 'tests.created_at', 'tests.error_message', 'tests.stdout', 'tests.stderr'])
          .orderBy(newestFirst, 'desc')
          .limit(limit)
          .offset(offset)
          .execute(),
        db.selectFrom(capped.as('capped')).select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
      ]);
      return { rows, total: Number(total.n) };
    },
  };
}
export type SearchRow = Awaited<ReturnType<ReturnType<typeof createSearchRepo>['page']>>['rows'][number];
