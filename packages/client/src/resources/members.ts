import type { BodyOf, QueryOf } from '@testreport/contract';
import type { RequestOptions } from '../core/requestOptions.js';
import { APIResource } from '../core/resource.js';

/** Account-level: needs a signed-in user (session), not an API key. */
export class Members extends APIResource {
  list(query: QueryOf<'members.list'>, opts?: RequestOptions) {
    return this.client.request('members.list', { query }, opts);
  }
  /** Mails an invitation; the person joins when they accept it. */
  invite(body: BodyOf<'members.invite'>, opts?: RequestOptions) {
    return this.client.request('members.invite', { body }, opts);
  }
  update(id: string, body: BodyOf<'members.update'>, opts?: RequestOptions) {
    return this.client.request('members.update', { params: { id }, body }, opts);
  }
  remove(id: string, opts?: RequestOptions) {
    return this.client.request('members.remove', { params: { id } }, opts);
  }
}
