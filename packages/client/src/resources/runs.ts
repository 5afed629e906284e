import type { BodyOf, QueryOf } from '@testreport/contract';
import { paginate } from '../core/pagination.js';
import type { RequestOptions } from '../core/requestOptions.js';
import { APIResource } from '../core/resource.js';

export class Runs extends APIResource {
  create(body: BodyOf<'runs.create'>, opts?: RequestOptions) {
    return this.client.request('runs.create', { body }, opts);
  }
  /** One page of a project's runs, newest first. */
  list(query: QueryOf<'runs.list'>, opts?: RequestOptions) {
    return this.client.request('runs.list', { query }, opts);
  }
  get(id: string, opts?: RequestOptions) {
    return this.client.request('runs.get', { params: { id } }, opts);
  }
  /** Status, counts and duration; moving to passed/failed/cancelled finishes the run (webhooks fire). */
  update(id: string, body: BodyOf<'runs.update'>, opts?: RequestOptions) {
    return this.client.request('runs.update', { params: { id }, body }, opts);
  }
  /** Every attempt of every shard of a CI-build run, ordered by index then attempt. */
  shards(id: string, opts?: RequestOptions) {
    return this.client.request('runs.shards', { params: { id } }, opts);
  }
  /** Finish the run now from what is stored; idempotent on a finished run. */
  complete(id: string, opts?: RequestOptions) {
    return this.client.request('runs.complete', { params: { id } }, opts);
  }
  /** Finish the run as cancelled; idempotent on a finished run. */
  cancel(id: string, opts?: RequestOptions) {
    return this.client.request('runs.cancel', { params: { id } }, opts);
  }
  delete(id: string, opts?: RequestOptions) {
    return this.client.request('runs.delete', { params: { id } }, opts);
  }
  /**
   * Counts, failures (with file, first error line and dashboard link), new failures and fixed tests
   * against `base` (default: the project's default branch), flaky tests and quarantined failures;
   * each list holds its first `limit` entries and its total.
   */
  summary(id: string, query: QueryOf<'runs.summary'> = {}, opts?: RequestOptions) {
    return this.client.request('runs.summary', { params: { id }, query }, opts);
  }
  /**
   * Compares the run with any other run of its project (`base`, of any branch): new failures, fixed,
   * still failing, added, removed, slower and faster tests (≥ 20% and ≥ 100 ms), each list its
   * first `limit` entries and its total.
   */
  /** The accepted snapshots of a run, with signed download URLs of their actuals (docs/decisions.md §13). */
  baselines(id: string, opts?: RequestOptions) {
    return this.client.request('runs.baselines', { params: { id } }, opts);
  }

  compare(id: string, base: string, query: Omit<QueryOf<'runs.compare'>, 'base'> = {}, opts?: RequestOptions) {
    return this.client.request('runs.compare', { params: { id }, query: { ...query, base } }, opts);
  }
  /** Every run matching the query, fetching pages as the loop advances. */
  iterate(query: QueryOf<'runs.list'>, opts?: RequestOptions) {
    return paginate((q, o) => this.list(q, o), query, opts);
  }
}
