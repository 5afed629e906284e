import type { Context, Hono } from 'hono';
import { getCookie } from 'hono/cookie';
import { endpoints, operationIds, type EndpointDef, type OperationId } from '@testreport/contract';
import { principalScope, type Principal } from '../authz/principal.js';
import { SESSION_COOKIE } from '../accounts/sessions.js';
import { ForbiddenError, UnauthorizedError, ValidationError } from '../lib/errors.js';
import type { Services } from '../services.js';
import { Reply, type Handler, type Handlers } from './handler.js';
import { parseWith } from './validation.js';

export const API_PREFIX = '/api/v1';
export const fullPath = (def: EndpointDef) => (def.base === 'api' ? API_PREFIX : '') + def.path;

/** Account flows an unverified user may still use (to see their state and to sign out). */
const UNVERIFIED_OK = new Set<OperationId>(['auth.me', 'auth.logout']);

export function clientIp(c: Context): string {
  const incoming = (c.env as { incoming?: { socket?: { remoteAddress?: string } } } | undefined)?.incoming;
  return incoming?.socket?.remoteAddress ?? 'local';
}

async function authenticate(c: Context, op: OperationId, def: EndpointDef, services: Services): Promise<Principal> {
  const apiKey = c.req.header('x-api-key');
  if (apiKey !== undefined && def.auth !== 'public') {
    const p = await services.apiKeys.authenticate(apiKey);
    if (def.auth === 'user') throw new ForbiddenError('This action needs a signed-in user; API keys cannot perform it');
    return p;
  }
  const token = getCookie(c, SESSION_COOKIE);
  if (token && (def.auth !== 'public' || op === 'auth.logout')) {
    return services.sessions.authenticate(token, { allowUnverified: UNVERIFIED_OK.has(op) });
  }
  if (def.auth === 'public') return { kind: 'anonymous', ip: clientIp(c) };
  throw new UnauthorizedError('Authentication required: send an X-API-Key header or sign in');
}

/**
 * CSRF defence for cookie-authenticated writes (decisions §4): JSON bodies only, and an Origin
 * header, when present, must be {app_url}'s. API-key callers are not exposed to CSRF.
 */
function checkCookieWrite(c: Context, principal: Principal, def: EndpointDef, appUrl: string) {
  if (principal.kind !== 'user' || def.method === 'GET') return;
  const origin = c.req.header('origin');
  if (origin && appUrl && origin !== new URL(appUrl).origin) throw new ForbiddenError('Cross-origin request refused');
  // Without a body there is nothing to smuggle in a form post; SameSite=Lax and Origin cover the rest.
  if (def.method === 'DELETE' || (!def.body && !def.multipart)) return;
  const type = (c.req.header('content-type') ?? '').toLowerCase();
  if (def.multipart) {
    if (!origin && !type.startsWith('multipart/form-data')) throw new ForbiddenError('Uploads need multipart/form-data');
    return;
  }
  if (!type.startsWith('application/json')) throw new ForbiddenError('Signed-in writes must be sent as application/json');
}

async function readJson(c: Context): Promise<{ raw: string; value: unknown }> {
  const raw = await c.req.text();
  if (raw.trim() === '') return { raw, value: {} };
  try {
    return { raw, value: JSON.parse(raw) };
  } catch (err) {
    throw new ValidationError('body', 'invalid_type', `Malformed JSON: ${(err as Error).message}`);
  }
}

/** Mounts every endpoint of the contract with one pipeline: auth → CSRF → rate limit → validate → idempotency → handler. */
export function mountEndpoints(app: Hono, services: Services, handlers: Handlers) {
  const { config } = services.deps;
  for (const op of operationIds) {
    const def: EndpointDef = endpoints[op];
    const handler = handlers[op] as Handler<OperationId>;
    app.on(def.method, fullPath(def), async (c) => {
      const principal = await authenticate(c, op, def, services);
      checkCookieWrite(c, principal, def, config.publicUrl);

      const caller = def.rateGroup === 'auth' ? `ip:${clientIp(c)}` : principalScope(principal);
      const rateHeaders = config.rateLimits ? await services.rateLimiter.hit(caller, def.rateGroup) : {};
      for (const [k, v] of Object.entries(rateHeaders)) c.header(k, v);

      const params = def.params ? parseWith(def.params, c.req.param()) : undefined;
      const query = def.query ? parseWith(def.query, c.req.query()) : undefined;
      let raw = '';
      let body: unknown;
      if (def.body) {
        const json = await readJson(c);
        raw = json.raw;
        body = parseWith(def.body, json.value);
      }

      const run = async () => {
        const out = await handler({ params, query, body, principal, services, c } as never);
        const status = out instanceof Reply ? out.status : def.status;
        const payload = out instanceof Reply ? out.body : out;
        return { status, body: JSON.stringify(payload) };
      };

      const idemKey = def.method === 'POST' ? c.req.header('idempotency-key') : undefined;
      const result = idemKey
        ? await services.idempotency.run(
            { scope: principalScope(principal), key: idemKey, method: def.method, path: c.req.path, bodyHash: services.idempotency.bodyHash(raw) },
            run,
          )
        : { ...(await run()), replayed: false };
      if (result.replayed) c.header('Idempotent-Replayed', 'true');
      return c.body(result.body, result.status as 200, { 'Content-Type': 'application/json; charset=utf-8' });
    });
  }
}
