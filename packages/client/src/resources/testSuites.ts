import type { BodyOf, QueryOf, SuiteBatchItem } from '@testreport/contract';
import type { RequestOptions } from '../core/requestOptions.js';
import { APIResource } from '../core/resource.js';

export class TestSuites extends APIResource {
  /** Creates the suite, or returns the existing one with the same title and file path in the run. */
  upsert(body: BodyOf<'testSuites.upsert'>, opts?: RequestOptions) {
    return this.client.request('testSuites.upsert', { body }, opts);
  }
  /**
   * 1–500 upserts in one request, all or nothing, answered in input order. An item may nest under
   * an earlier item of the same batch with `parentIndex` instead of `parentSuiteId`.
   */
  createBatch(suites: SuiteBatchItem[], opts?: RequestOptions) {
    return this.client.request('testSuites.createBatch', { body: { suites } }, opts);
  }
  /** The suite tree of a run: root suites with nested children. */
  list(query: QueryOf<'testSuites.list'>, opts?: RequestOptions) {
    return this.client.request('testSuites.list', { query }, opts);
  }
}
