import type { BodyOf, QueryOf } from '@testreport/contract';
import type { RequestOptions } from '../core/requestOptions.js';
import { APIResource } from '../core/resource.js';

export class ApiKeys extends APIResource {
  /** Keys of a project, masked. */
  list(query: QueryOf<'apiKeys.list'>, opts?: RequestOptions) {
    return this.client.request('apiKeys.list', { query }, opts);
  }
  /** Needs a signed-in user; the full key is in this answer only. */
  create(body: BodyOf<'apiKeys.create'>, opts?: RequestOptions) {
    return this.client.request('apiKeys.create', { body }, opts);
  }
  update(id: string, body: BodyOf<'apiKeys.update'>, opts?: RequestOptions) {
    return this.client.request('apiKeys.update', { params: { id }, body }, opts);
  }
  delete(id: string, opts?: RequestOptions) {
    return this.client.request('apiKeys.delete', { params: { id } }, opts);
  }
}
