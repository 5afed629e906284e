import type { BodyOf, QueryOf } from '@testreport/contract';
import type { RequestOptions } from '../core/requestOptions.js';
import { APIResource } from '../core/resource.js';

export class Projects extends APIResource {
  list(query: QueryOf<'projects.list'>, opts?: RequestOptions) {
    return this.client.request('projects.list', { query }, opts);
  }
  create(body: BodyOf<'projects.create'>, opts?: RequestOptions) {
    return this.client.request('projects.create', { body }, opts);
  }
  get(id: string, opts?: RequestOptions) {
    return this.client.request('projects.get', { params: { id } }, opts);
  }
  /** Name and/or settings fields. */
  update(id: string, body: BodyOf<'projects.update'>, opts?: RequestOptions) {
    return this.client.request('projects.update', { params: { id }, body }, opts);
  }
  /** Deletes the project with its runs, tests, artifacts, keys and webhooks. */
  delete(id: string, opts?: RequestOptions) {
    return this.client.request('projects.delete', { params: { id } }, opts);
  }
  getSettings(id: string, opts?: RequestOptions) {
    return this.client.request('projects.getSettings', { params: { id } }, opts);
  }
  /** The suite's files in `total` shards of about equal duration, from the project's recent runs. */
  shardPlan(id: string, query: QueryOf<'projects.shardPlan'>, opts?: RequestOptions) {
    return this.client.request('projects.shardPlan', { params: { id }, query }, opts);
  }
  updateSettings(id: string, body: BodyOf<'projects.updateSettings'>, opts?: RequestOptions) {
    return this.client.request('projects.updateSettings', { params: { id }, body }, opts);
  }
}
