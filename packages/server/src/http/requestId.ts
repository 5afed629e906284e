import { requestId as honoRequestId } from 'hono/request-id';
import { newId } from '../lib/ids.js';
import './context.js';

/**
 * Every response carries `X-Request-Id`: the client's when it is 1–100 characters of
 * `[A-Za-z0-9_=-]` (anything else could forge log lines), else a fresh UUIDv7. The id is stored on
 * the context, so the error handler logs it with every 500.
 */
export const requestId = () => honoRequestId({ limitLength: 100, generator: () => newId() });
