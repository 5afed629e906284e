import type { Context } from 'hono';
import type { OperationId, ParamsOf, ParsedBodyOf, ParsedQueryOf, ResponseOf } from '@testreport/contract';
import type { Principal } from '../authz/principal.js';
import type { Services } from '../services.js';

export interface HandlerContext<K extends OperationId> {
  params: ParamsOf<K>;
  query: ParsedQueryOf<K>;
  body: ParsedBodyOf<K>;
  principal: Principal;
  services: Services;
  /** The raw Hono context, for the few HTTP-only concerns (cookies, multipart streams). */
  c: Context;
}

/** A handler may answer with a body (sent with the endpoint's status) or pick the status itself. */
export class Reply<T> {
  constructor(
    readonly status: 200 | 201,
    readonly body: T,
  ) {}
}
export const reply = <T>(status: 200 | 201, body: T): Reply<T> => new Reply(status, body);

export type Handler<K extends OperationId> = (ctx: HandlerContext<K>) => Promise<ResponseOf<K> | Reply<ResponseOf<K>>>;
export type Handlers<K extends OperationId = OperationId> = { [P in K]: Handler<P> };
