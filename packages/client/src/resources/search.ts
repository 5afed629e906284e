import type { QueryOf } from '@testreport/contract';
import { paginate } from '../core/pagination.js';
import type { RequestOptions } from '../core/requestOptions.js';
import { APIResource } from '../core/resource.js';

/** Search over every retained result: titles, error messages and output, newest first. */
export class Search extends APIResource {
  /** One page of results containing `q`, each with a snippet (plain text plus match offsets). */
  query(query: QueryOf<'search'>, opts?: RequestOptions) {
    return this.client.request('search', { query }, opts);
  }
  iterate(query: QueryOf<'search'>, opts?: RequestOptions) {
    return paginate((q, o) => this.query(q, o), query, opts);
  }
}
