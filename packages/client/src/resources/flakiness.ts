import type { BodyOf, QueryOf } from '@testreport/contract';
import { paginate } from '../core/pagination.js';
import type { RequestOptions } from '../core/requestOptions.js';
import { APIResource } from '../core/resource.js';

export class Flakiness extends APIResource {
  /** Flaky test cases, highest score first, with a summary. */
  list(query: QueryOf<'flakiness.list'>, opts?: RequestOptions) {
    return this.client.request('flakiness.list', { query }, opts);
  }
  update(body: BodyOf<'flakiness.update'>, opts?: RequestOptions) {
    return this.client.request('flakiness.update', { body }, opts);
  }
  /** Quarantines the case of `testId` (any result id of the case). */
  quarantine(testId: string, projectId: string, opts?: RequestOptions) {
    return this.update({ testId, projectId, isQuarantined: true }, opts);
  }
  release(testId: string, projectId: string, opts?: RequestOptions) {
    return this.update({ testId, projectId, isQuarantined: false }, opts);
  }
  /** Quarantine and release events of the case of `testId`, newest first (who, why, score at the time). */
  events(testId: string, projectId: string, opts?: RequestOptions) {
    return this.client.request('flakiness.events', { params: { testId }, query: { projectId } }, opts);
  }
  iterate(query: QueryOf<'flakiness.list'>, opts?: RequestOptions) {
    return paginate((q, o) => this.list(q, o), query, opts);
  }
}
