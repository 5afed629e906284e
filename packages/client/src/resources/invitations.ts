import type { BodyOf, QueryOf } from '@testreport/contract';
import type { RequestOptions } from '../core/requestOptions.js';
import { APIResource } from '../core/resource.js';

/** Account-level: needs a signed-in user (session), not an API key. */
export class Invitations extends APIResource {
  list(query: QueryOf<'invitations.list'>, opts?: RequestOptions) {
    return this.client.request('invitations.list', { query }, opts);
  }
  /** Accepts, as the signed-in user, an invitation mailed to their address. */
  accept(body: BodyOf<'invitations.accept'>, opts?: RequestOptions) {
    return this.client.request('invitations.accept', { body }, opts);
  }
  revoke(id: string, opts?: RequestOptions) {
    return this.client.request('invitations.revoke', { params: { id } }, opts);
  }
}
