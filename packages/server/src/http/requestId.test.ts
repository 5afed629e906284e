import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { errorHandler } from './errorHandler.js';
import { requestId } from './requestId.js';

function appWithLog() {
  const logged: unknown[] = [];
  const logger = { error: (_m: string, extra?: unknown) => logged.push(extra), warn() {}, info() {}, debug() {} };
  const app = new Hono();
  app.use('*', requestId());
  app.get('/ok', (c) => c.text(c.get('requestId')));
  app.get('/boom', () => {
    throw new Error('database is gone');
  });
  app.onError(errorHandler(logger));
  return { app, logged };
}

describe('requestId', () => {
  it('echoes a well-formed client id and stores it on the context', async () => {
    const { app } = appWithLog();
    const res = await app.request('/ok', { headers: { 'X-Request-Id': 'ci-run_42=a' } });
    expect(res.headers.get('x-request-id')).toBe('ci-run_42=a');
    expect(await res.text()).toBe('ci-run_42=a');
  });

  it.each([
    ['too long', 'a'.repeat(101)],
    ['with characters that could forge a log line', 'abc" injected="1'],
    ['empty', ''],
  ])('replaces an id that is %s with a generated one', async (_why, sent) => {
    const { app } = appWithLog();
    const res = await app.request('/ok', { headers: { 'X-Request-Id': sent } });
    expect(res.headers.get('x-request-id')).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-/);
  });

  it('logs the request id with every 500, and the answer carries the same id', async () => {
    const { app, logged } = appWithLog();
    const res = await app.request('/boom', { headers: { 'X-Request-Id': 'trace-500' } });
    expect(res.status).toBe(500);
    expect(res.headers.get('x-request-id')).toBe('trace-500');
    expect(await res.json()).toEqual({ error: { code: 'INTERNAL_ERROR', message: 'Unexpected server error' } });
    expect(logged).toEqual([expect.objectContaining({ requestId: 'trace-500', message: 'database is gone' })]);
  });
});
