import type { MiddlewareHandler } from 'hono';
import { getCookie } from 'hono/cookie';
import type { EndpointDef, OperationId } from '@testreport/contract';
import { SESSION_COOKIE } from '../accounts/sessions.js';
import type { Principal } from '../authz/principal.js';
import { ForbiddenError, UnauthorizedError } from '../lib/errors.js';
import type { Services } from '../services.js';
import './context.js';

/** Account flows an unverified user may still use (to see their state and to sign out). */
const UNVERIFIED_OK = new Set<OperationId>(['auth.me', 'auth.logout']);

/**
 * Resolves the caller of one operation and stores it as `principal`: an API key (X-API-Key), a
 * session cookie, or anonymous on public operations. Refusals are thrown (401/403).
 */
export function authenticate(op: OperationId, def: EndpointDef, services: Services): MiddlewareHandler {
  return async function authenticate(c, next) {
    c.set('principal', await resolve());
    await next();

    async function resolve(): Promise<Principal> {
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
      if (def.auth === 'public') return { kind: 'anonymous', ip: c.get('clientIp') };
      throw new UnauthorizedError('Authentication required: send an X-API-Key header or sign in');
    }
  };
}
