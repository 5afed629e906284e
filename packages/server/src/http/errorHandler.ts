import type { Context, ErrorHandler } from 'hono';
import { HTTPException } from 'hono/http-exception';
import type { Logger } from '../lib/logger.js';
import { databaseOutage } from '../db/errors.js';
import { AppError } from '../lib/errors.js';
import './context.js';

/** The one place where errors become the envelope of docs/decisions.md §3. Never leaks a stack trace. */
export function toErrorResponse(err: unknown, c: Context, logger: Logger): Response {
  const outage = err instanceof AppError ? undefined : databaseOutage(err);
  if (outage) {
    logger.warn(`${outage.status} on ${c.req.method} ${c.req.path}: ${err instanceof Error ? err.message : String(err)}`);
    err = outage;
  }
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
  const requestId = c.get('requestId');
  const detail = err instanceof Error ? { requestId, message: err.message, stack: err.stack } : { requestId, error: err };
  logger.error(`unexpected error on ${c.req.method} ${c.req.path}`, detail);
  return c.json({ error: { code: 'INTERNAL_ERROR', message: 'Unexpected server error' } }, 500);
}

/** For `app.onError`. */
export const errorHandler = (logger: Logger): ErrorHandler => (err, c) => toErrorResponse(err, c, logger);
