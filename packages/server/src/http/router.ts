import type { Hono } from 'hono';
import { endpoints, operationIds, type EndpointDef, type OperationId } from '@testreport/contract';
import { principalScope } from '../authz/principal.js';
import { groupCommit } from '../db/groupCommit.js';
import { jointCommit } from '../db/jointWrites.js';
import { SECRET_RESPONSES } from '../idempotency/service.js';
import { encodeResponse } from '../lib/jsonBytes.js';
import type { Services } from '../services.js';
import { authenticate } from './authenticate.js';
import { apiCookieWrites } from './csrf.js';
import { Reply, type Handler, type Handlers } from './handler.js';
import { fullPath } from './paths.js';
import { rateLimit } from './rateLimit.js';
import { validateRequest } from './validateRequest.js';
import './context.js';

/**
 * Small writes that clients send many of at once (SDK scripts, one-test-per-request reporters): they
 * share one transaction and its commit with whatever else is in flight (db/groupCommit.ts), each
 * still all-or-nothing with its Idempotency-Key record.
 */
const GROUPED: ReadonlySet<OperationId> = new Set<OperationId>(['tests.create', 'testSuites.upsert', 'runs.update']);
/** Of those, the ones whose concurrent requests also store their results as one batch (db/jointWrites.ts). */
const JOINT: ReadonlySet<OperationId> = new Set<OperationId>(['tests.create']);

/**
 * Mounts every endpoint of the contract with one pipeline of middleware:
 * authenticate → CSRF check for cookie writes → rate limit → validate → Idempotency-Key → handler.
 */
export function mountEndpoints(app: Hono, services: Services, handlers: Handlers) {
  const { config } = services.deps;
  const appUrl = () => config.publicUrl;
  const limiter = () => (config.rateLimits ? services.rateLimiter : null);
  for (const op of operationIds) {
    const def: EndpointDef = endpoints[op];
    const handler = handlers[op] as Handler<OperationId>;
    app.on(def.method, fullPath(def), authenticate(op, def, services), apiCookieWrites(def, appUrl), rateLimit(def.rateGroup, limiter), validateRequest(def), async (c) => {
      const principal = c.get('principal');
      const { params, query, body, bodyHash } = c.get('input');

      const run = async () => {
        const out = await handler({ params, query, body, principal, services, c } as never);
        const status = out instanceof Reply ? out.status : def.status;
        const payload = out instanceof Reply ? out.body : out;
        return { status, body: encodeResponse(payload) };
      };

      // Uploads take their key themselves once the file's digest is known (artifacts/route.ts).
      const idemKey = def.method === 'POST' && !def.multipart ? c.req.header('idempotency-key') : undefined;
      const respond = async () =>
        idemKey
          ? services.idempotency.run(
              { scope: principalScope(principal), key: idemKey, method: def.method, path: c.req.path, bodyHash, secretInResponse: SECRET_RESPONSES[op] },
              run,
            )
          : { ...(await run()), replayed: false };
      const { db } = services.deps;
      const result = JOINT.has(op)
        ? await jointCommit(db, respond, idemKey === undefined ? undefined : `${principalScope(principal)}\n${idemKey}`)
        : GROUPED.has(op)
          ? await groupCommit(db, respond)
          : await respond();
      if (result.replayed) c.header('Idempotent-Replayed', 'true');
      return c.body(result.body, result.status as 200, { 'Content-Type': 'application/json; charset=utf-8' });
    });
  }
}
