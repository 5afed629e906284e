import type { MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { PayloadTooLargeError } from '../lib/errors.js';

/** Refuses bodies above `maxSize` bytes with 413; the error handler writes the body like any other error. */
export const maxBody = (maxSize: number): MiddlewareHandler =>
  bodyLimit({
    maxSize,
    onError: () => {
      throw new PayloadTooLargeError('Request body is too large');
    },
  });
