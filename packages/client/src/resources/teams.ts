import type { BodyOf } from '@testreport/contract';
import type { RequestOptions } from '../core/requestOptions.js';
import { APIResource } from '../core/resource.js';

/** Account-level: needs a signed-in user (session), not an API key. */
export class Teams extends APIResource {
  list(opts?: RequestOptions) {
    return this.client.request('teams.list', {}, opts);
  }
  create(body: BodyOf<'teams.create'>, opts?: RequestOptions) {
    return this.client.request('teams.create', { body }, opts);
  }
  update(id: string, body: BodyOf<'teams.update'>, opts?: RequestOptions) {
    return this.client.request('teams.update', { params: { id }, body }, opts);
  }
  delete(id: string, opts?: RequestOptions) {
    return this.client.request('teams.delete', { params: { id } }, opts);
  }
}
