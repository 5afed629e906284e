import type { SearchField } from '@testreport/contract';
import type { Db } from '../db/database.js';
import { SEARCH_COLUMNS, searchContains } from '../db/search.js';

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
    let q = db
      .selectFrom('tests')
      .where('project_id', '=', f.projectId)
      .where(searchContains(db, f.in.flatMap((field) => SEARCH_COLUMNS[field]), f.q));
    if (f.since) q = q.where('created_at', '>=', f.since);
    if (f.branch) q = q.where('branch', '=', f.branch);
    return q;
  };

  return {
    async page(f: SearchFilters, limit: number, offset: number) {
      const [rows, total] = await Promise.all([
        matching(f)
          .select(['id', 'run_id', 'title', 'full_title', 'file_path', 'status', 'branch', 'commit_sha', 'created_at', 'error_message', 'stdout', 'stderr'])
          .orderBy('id', 'desc')
          .limit(limit)
          .offset(offset)
          .execute(),
        matching(f).select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
      ]);
      return { rows, total: Number(total.n) };
    },
  };
}
export type SearchRow = Awaited<ReturnType<ReturnType<typeof createSearchRepo>['page']>>['rows'][number];
