import type { Context } from 'hono';
import { HTTPException } from 'hono/http-exception';
import type { Logger } from '../lib/logger.js';
import { AppError } from '../lib/errors.js';

/** The one place where errors become the envelope of decisions §3. Never leaks a stack trace. */
export function toErrorResponse(err: unknown, c: Context, logger: Logger): Response {
  if (err instanceof AppError) {
    const body = { error: { code: err.code, message: err.message, ...(err.details ? { details: err.details } : {}) } };
    return c.json(body, err.status as 400, err.headers);
  }
  if (err instanceof HTTPException && err.status === 413) {
    return c.json({ error: { code: 'PAYLOAD_TOO_LARGE', message: 'Request body is too large' } }, 413);
  }
  if (err instanceof HTTPException && err.status < 500) {
    return c.json({ error: { code: 'VALIDATION_ERROR', message: err.message || 'Bad request', details: { field: 'body', reason: 'invalid_value' } } }, 400);
  }
  logger.error(`unexpected error on ${c.req.method} ${c.req.path}`, err instanceof Error ? { message: err.message, stack: err.stack } : err);
  return c.json({ error: { code: 'INTERNAL_ERROR', message: 'Unexpected server error' } }, 500);
}
