import type { QueryOf } from '@testreport/contract';
import type { RequestOptions } from '../core/requestOptions.js';
import { APIResource } from '../core/resource.js';

/** A project's trend and its slowest, most failing, flakiest and newly slower tests over 7, 30 or 90 days. */
export class Insights extends APIResource {
  /** `days` 7, 30 or 90 (default 30), optionally one branch and one CODEOWNERS owner; `limit` items per list. */
  get(query: QueryOf<'insights'>, opts?: RequestOptions) {
    return this.client.request('insights', { query }, opts);
  }
}
