import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { sameOriginForms } from './csrf.js';
import { errorHandler } from './errorHandler.js';

const APP = 'https://reports.example.com';
const quiet = { error() {}, warn() {}, info() {}, debug() {} };

function formApp() {
  const app = new Hono();
  app.use('*', sameOriginForms(() => APP));
  app.post('/dashboard/projects', (c) => c.text('saved'));
  app.get('/dashboard/projects', (c) => c.text('page'));
  app.onError(errorHandler(quiet));
  return app;
}

const post = (headers: Record<string, string>, body = 'name=x') => formApp().request('/dashboard/projects', { method: 'POST', headers, body });

describe('sameOriginForms', () => {
  it.each([
    ['application/x-www-form-urlencoded'],
    ['multipart/form-data; boundary=x'],
    ['text/plain;charset=UTF-8'],
  ])('accepts a %s post whose Origin is {app_url}', async (type) => {
    const res = await post({ 'Content-Type': type, Origin: APP });
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('saved');
  });

  it('falls back to Referer when Origin is absent', async () => {
    expect((await post({ 'Content-Type': 'application/x-www-form-urlencoded', Referer: `${APP}/dashboard/projects?x=1` })).status).toBe(200);
    const foreign = await post({ 'Content-Type': 'application/x-www-form-urlencoded', Referer: 'https://evil.example/page' });
    expect(foreign.status).toBe(403);
  });

  it.each([
    ['a foreign Origin', { Origin: 'https://evil.example' }],
    ['a foreign Origin even with a same-origin Referer', { Origin: 'https://evil.example', Referer: `${APP}/` }],
    ['Origin "null" (no-referrer pages, sandboxed frames)', { Origin: 'null' }],
    ['another port of the same host', { Origin: 'https://reports.example.com:8443' }],
    ['neither Origin nor Referer', {}],
  ])('refuses a form post with %s with 403 in the error envelope', async (_name, headers) => {
    const res = await post({ 'Content-Type': 'application/x-www-form-urlencoded', ...headers });
    expect(res.status).toBe(403);
    expect(await res.json()).toEqual({ error: { code: 'FORBIDDEN', message: expect.stringContaining('Form posts') } });
  });

  it('leaves reads and non-form bodies to the routes', async () => {
    expect((await formApp().request('/dashboard/projects')).status).toBe(200);
    // JSON cannot be sent cross-site without a CORS preflight, which this server never grants.
    expect((await post({ 'Content-Type': 'application/json' }, '{}')).status).toBe(200);
  });
});
