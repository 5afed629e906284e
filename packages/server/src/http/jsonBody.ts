import type { Context } from 'hono';
import { hasLoneSurrogate, toWellFormed } from '@testreport/contract';
import { ValidationError } from '../lib/errors.js';
import { sha256Hex } from '../lib/crypto.js';
import { joinedUntilNextCall, readIncomingChunks, unreadIncoming, withoutBom } from './nodeBody.js';
import { parseArrayBody } from './splitJson.js';

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

/** From this size a body is parsed without a string of the whole (splitJson.ts): V8 keeps shorter strings in its young generation. */
const SPLIT_FROM = 64 * 1024;

/** Parses a JSON text (empty = `{}`), 400 on malformed JSON, lone surrogates repaired. */
function parseText(text: string): unknown {
  if (text.trim() === '') return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new ValidationError('body', 'invalid_type', `Malformed JSON: ${(err as Error).message}`);
  }
  // The walk costs a pass over the body, so only bodies that can hold a lone surrogate pay it.
  return SURROGATE_ESCAPE.test(text) || hasLoneSurrogate(text) ? repairStrings(value) : value;
}

/**
 * Reads a JSON body (empty = `{}`), with the SHA-256 the Idempotency-Key step compares: of the
 * bytes as received (a leading BOM dropped) under the Node server, which for valid UTF-8 is that of
 * the decoded text, hashed under `app.request()`. The bytes are hashed here because the buffer
 * holding them is reused by the next body (nodeBody.ts).
 */
export async function readJson(c: Context): Promise<{ bodyHash: string; value: unknown }> {
  const incoming = unreadIncoming(c);
  if (!incoming) {
    const text = await c.req.text();
    return { bodyHash: sha256Hex(text), value: parseText(text) };
  }
  const bytes = withoutBom(joinedUntilNextCall(await readIncomingChunks(incoming)));
  const bodyHash = sha256Hex(bytes);
  const split = bytes.length >= SPLIT_FROM ? parseArrayBody(bytes) : undefined;
  if (!split) return { bodyHash, value: parseText(bytes.toString('utf8')) };
  return { bodyHash, value: split.escapes ? repairStrings(split.value) : split.value };
}
