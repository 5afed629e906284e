import type { QueryOf } from '@testreport/contract';
import { paginate } from '../core/pagination.js';
import type { RequestOptions } from '../core/requestOptions.js';
import { APIResource } from '../core/resource.js';

/** Error groups across runs: results whose errors share a fingerprint (normalised message + file). */
export class Errors extends APIResource {
  /** Groups with occurrences, tests, runs, first and last seen; most recently seen first. */
  list(query: QueryOf<'errors.list'>, opts?: RequestOptions) {
    return this.client.request('errors.list', { query }, opts);
  }
  /** One group with its daily occurrences and the test cases it hits. */
  get(fingerprint: string, query: QueryOf<'errors.get'>, opts?: RequestOptions) {
    return this.client.request('errors.get', { params: { fingerprint }, query }, opts);
  }
  iterate(query: QueryOf<'errors.list'>, opts?: RequestOptions) {
    return paginate((q, o) => this.list(q, o), query, opts);
  }
}
