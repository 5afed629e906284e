import type { Context } from 'hono';
import { AppError } from '../lib/errors.js';

/** No route matched: thrown to the error handler, so a 404 looks like every other error. */
export function notFound(c: Context): never {
  throw new AppError(404, 'NOT_FOUND', `No route for ${c.req.method} ${c.req.path}`);
}
