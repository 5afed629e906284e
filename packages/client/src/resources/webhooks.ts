import type { BodyOf, QueryOf } from '@testreport/contract';
import { paginate } from '../core/pagination.js';
import type { RequestOptions } from '../core/requestOptions.js';
import { APIResource } from '../core/resource.js';

export class Webhooks extends APIResource {
  list(query: QueryOf<'webhooks.list'>, opts?: RequestOptions) {
    return this.client.request('webhooks.list', { query }, opts);
  }
  create(body: BodyOf<'webhooks.create'>, opts?: RequestOptions) {
    return this.client.request('webhooks.create', { body }, opts);
  }
  get(id: string, opts?: RequestOptions) {
    return this.client.request('webhooks.get', { params: { id } }, opts);
  }
  update(id: string, body: BodyOf<'webhooks.update'>, opts?: RequestOptions) {
    return this.client.request('webhooks.update', { params: { id }, body }, opts);
  }
  delete(id: string, opts?: RequestOptions) {
    return this.client.request('webhooks.delete', { params: { id } }, opts);
  }
  /** One page of the delivery log, newest first. */
  deliveries(id: string, query: QueryOf<'webhooks.deliveries'> = {}, opts?: RequestOptions) {
    return this.client.request('webhooks.deliveries', { params: { id }, query }, opts);
  }
  iterateDeliveries(id: string, query: QueryOf<'webhooks.deliveries'> = {}, opts?: RequestOptions) {
    return paginate((q, o) => this.deliveries(id, q, o), query, opts);
  }
  /** Queues a `ping` delivery and returns it. */
  test(id: string, opts?: RequestOptions) {
    return this.client.request('webhooks.test', { params: { id } }, opts);
  }
}
