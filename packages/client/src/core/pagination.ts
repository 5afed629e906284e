import type { RequestOptions } from './requestOptions.js';

export interface Page<T> {
  data: T[];
  total: number;
  limit: number;
  offset: number;
}

/** Default page size while iterating: fewer round trips than the API's 50, well under its 500 cap. */
export const ITERATE_PAGE_SIZE = 200;

/**
 * Walks a limit/offset list page by page. Stops at an empty page or at the smallest `total` the
 * server reported, so rows added while iterating (newest-first lists) cannot make it run forever; they can
 * shift a row across a page edge, so a long walk may see one row twice — dedupe by id if it matters.
 */
export async function* paginate<T, Q extends { limit?: unknown; offset?: unknown }>(
  fetchPage: (query: Q, opts?: RequestOptions) => Promise<Page<T>>,
  query: Q,
  opts?: RequestOptions,
): AsyncGenerator<T, void, undefined> {
  const limit = Number(query.limit ?? ITERATE_PAGE_SIZE);
  let offset = Number(query.offset ?? 0);
  let cap = Infinity;
  for (;;) {
    const page = await fetchPage({ ...query, limit, offset }, opts);
    cap = Math.min(cap, page.total);
    for (const item of page.data) yield item;
    offset += page.data.length;
    if (page.data.length === 0 || offset >= cap) return;
  }
}
