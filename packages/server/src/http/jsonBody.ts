import type { Context } from 'hono';
import { hasLoneSurrogate, toWellFormed } from '@testreport/contract';
import { ValidationError } from '../lib/errors.js';
import { readIncomingText, unreadIncoming } from './nodeBody.js';

/** A `\uD800`–`\uDFFF` escape: the only way JSON text can carry a lone surrogate besides raw UTF-16. */
const SURROGATE_ESCAPE = /\\u[dD][89a-fA-F][0-9a-fA-F]{2}/;

/**
 * Replaces lone surrogates in every string of a parsed body with U+FFFD, walking with a stack so
 * deep bodies cannot overflow. SQLite would store U+FFFD anyway; repairing first keeps the value the
 * server holds equal to the stored one (a mismatch once made whole batches fail).
 */
function repairStrings(root: unknown): unknown {
  if (typeof root === 'string') return toWellFormed(root);
  const stack: object[] = root !== null && typeof root === 'object' ? [root] : [];
  while (stack.length > 0) {
    const node = stack.pop() as Record<string, unknown>;
    for (const key of Object.keys(node)) {
      const v = node[key];
      if (typeof v === 'string') {
        if (hasLoneSurrogate(v)) node[key] = toWellFormed(v);
      } else if (v !== null && typeof v === 'object') stack.push(v);
    }
  }
  return root;
}

/** Reads a JSON body (empty = `{}`); `raw` is kept for the Idempotency-Key body hash. */
export async function readJson(c: Context): Promise<{ raw: string; value: unknown }> {
  const incoming = unreadIncoming(c);
  const raw = incoming ? await readIncomingText(incoming) : await c.req.text();
  if (raw.trim() === '') return { raw, value: {} };
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch (err) {
    throw new ValidationError('body', 'invalid_type', `Malformed JSON: ${(err as Error).message}`);
  }
  // The walk costs a pass over the body, so only bodies that can hold a lone surrogate pay it.
  if (SURROGATE_ESCAPE.test(raw) || hasLoneSurrogate(raw)) value = repairStrings(value);
  return { raw, value };
}
