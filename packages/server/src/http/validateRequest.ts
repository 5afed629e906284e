import type { MiddlewareHandler } from 'hono';
import type { EndpointDef } from '@testreport/contract';
import { sha256Hex } from '../lib/crypto.js';
import { FAST_BODY_PARSERS } from './fastBodies.js';
import { readJson } from './jsonBody.js';
import { parseWith } from './validation.js';
import './context.js';

/** A request without a body is hashed as an empty one. */
const NO_BODY_HASH = sha256Hex('');

/** Parses params, query and JSON body with the operation's schemas and stores them as `input` (400 on the first bad field). */
export function validateRequest(def: EndpointDef): MiddlewareHandler {
  // Ingestion's bodies first try a fast path that yields zod's own result or leaves the body to zod.
  const fast = def.body ? FAST_BODY_PARSERS.get(def.body) : undefined;
  return async function validateRequest(c, next) {
    const params = def.params ? parseWith(def.params, c.req.param()) : undefined;
    const query = def.query ? parseWith(def.query, c.req.query()) : undefined;
    let bodyHash = NO_BODY_HASH;
    let body: unknown;
    if (def.body) {
      const json = await readJson(c);
      bodyHash = json.bodyHash;
      body = fast?.(json.value) ?? parseWith(def.body, json.value);
    }
    c.set('input', { params, query, body, bodyHash });
    await next();
  };
}
