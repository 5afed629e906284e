import type { ParsedQueryOf, SearchHit, SearchResults } from '@testreport/contract';
import type { Principal } from '../authz/principal.js';
import type { Deps } from '../deps.js';
import { createSearchRepo, type SearchRow } from './repo.js';
import { snippetOf } from './snippet.js';

/** The first of the searched fields that holds the text, in the order titles, errors, output. */
function snippetFor(r: SearchRow, fields: ParsedQueryOf<'search'>['in'], q: string): SearchHit['snippet'] {
  const needle = q.toLowerCase();
  const candidates = [
    ['titles', r.full_title],
    ['errors', r.error_message],
    ['output', r.stdout],
    ['output', r.stderr],
  ] as const;
  const searched = candidates.filter(([field, text]) => fields.includes(field) && text);
  const hit = searched.find(([, text]) => text!.toLowerCase().includes(needle)) ?? searched[0] ?? (['titles', r.full_title] as const);
  return snippetOf(hit[0], hit[1] ?? '', q);
}

/**
 * Search over retained results (docs/decisions.md §13): titles, error messages and output contain `q`.
 * Authorization: `read` on the project (viewers included).
 */
export function createSearchService(deps: Deps) {
  const repo = createSearchRepo(deps.db);
  return {
    async search(principal: Principal, query: ParsedQueryOf<'search'>): Promise<SearchResults> {
      await deps.authz.project(principal, query.projectId, 'read', 'param');
      const { limit, offset, ...filters } = query;
      const { rows, total } = await repo.page(filters, limit, offset);
      return {
        data: rows.map((r) => ({
          testId: r.id, runId: r.run_id, title: r.title, fullTitle: r.full_title, filePath: r.file_path, status: r.status as SearchHit['status'],
          branch: r.branch, commitSha: r.commit_sha, createdAt: r.created_at, snippet: snippetFor(r, query.in, query.q),
        })),
        total, limit, offset,
      };
    },
  };
}
export type SearchService = ReturnType<typeof createSearchService>;
