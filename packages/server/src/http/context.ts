import type { Principal } from '../authz/principal.js';

/** What one request's pipeline stage hands to the next, typed for every `c.get`/`c.set`. */
export interface RequestInput {
  params: unknown;
  query: unknown;
  body: unknown;
  /** SHA-256 (hex) of the JSON body as received (of '' without one): what the Idempotency-Key step compares. */
  bodyHash: string;
}

declare module 'hono' {
  interface ContextVariableMap {
    /** Validated client X-Request-Id, or a generated one (`requestId.ts`). */
    requestId: string;
    /** The peer address (`clientIp.ts`). */
    clientIp: string;
    /** The caller (`authenticate.ts`). */
    principal: Principal;
    /** Parsed params, query and body (`validateRequest.ts`). */
    input: RequestInput;
  }
}
