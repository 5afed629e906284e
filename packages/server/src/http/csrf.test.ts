import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { endpoints } from '@testreport/contract';
import type { Principal } from '../authz/principal.js';
import { apiCookieWrites, sameOriginWrites } from './csrf.js';
import { errorHandler } from './errorHandler.js';

const APP = 'https://reports.example.com';
const quiet = { error() {}, warn() {}, info() {}, debug() {} };
const FORM = { 'Content-Type': 'application/x-www-form-urlencoded' };
const JSON_TYPE = { 'Content-Type': 'application/json' };

function dashboardApp() {
  const app = new Hono();
  app.use('*', sameOriginWrites(() => APP));
  app.on(['POST', 'PUT', 'PATCH', 'DELETE', 'GET'], '/projects/p/settings/webhooks/h/delete', (c) => c.text('done'));
  app.onError(errorHandler(quiet));
  return app;
}

const send = (headers: Record<string, string>, opts: { method?: string; body?: string } = {}) =>
  dashboardApp().request('/projects/p/settings/webhooks/h/delete', { method: opts.method ?? 'POST', headers, body: opts.body ?? (opts.method === 'GET' ? undefined : 'x=1') });

describe('sameOriginWrites (everything outside /api/v1)', () => {
  it.each([
    ['a form post', FORM],
    ['a multipart post', { 'Content-Type': 'multipart/form-data; boundary=x' }],
    ['a text/plain post', { 'Content-Type': 'text/plain;charset=UTF-8' }],
    ['a post without Content-Type', {}],
    ['a JSON post', JSON_TYPE],
  ])('accepts %s whose Origin is {app_url}', async (_name, headers) => {
    const res = await send({ ...headers, Origin: APP });
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('done');
  });

  it('falls back to Referer when Origin is absent', async () => {
    expect((await send({ ...FORM, Referer: `${APP}/projects/p/settings?x=1` })).status).toBe(200);
    expect((await send({ Referer: `${APP}/` })).status).toBe(200);
    expect((await send({ ...FORM, Referer: 'https://evil.example/page' })).status).toBe(403);
    expect((await send({ Referer: 'not a url' })).status).toBe(403);
  });

  // What `fetch(url, {method: 'POST', mode: 'no-cors', credentials: 'include'})` sends from a same-site
  // page: no Content-Type (a Blob body or none), or text/plain, and that page's Origin.
  it.each([
    ['a foreign Origin without Content-Type (no-cors fetch)', { Origin: 'https://evil.example' }],
    ['another port of the same host without Content-Type', { Origin: 'https://reports.example.com:8443' }],
    ['a sibling subdomain without Content-Type', { Origin: 'https://evil.reports.example.com' }],
    ['a foreign Origin on a form post', { ...FORM, Origin: 'https://evil.example' }],
    ['a foreign Origin even with a same-origin Referer', { ...FORM, Origin: 'https://evil.example', Referer: `${APP}/` }],
    ['a foreign Origin on JSON', { ...JSON_TYPE, Origin: 'https://evil.example' }],
    ['Origin "null" (no-referrer pages, sandboxed frames)', { ...FORM, Origin: 'null' }],
    ['neither Origin nor Referer on a form post', FORM],
    ['neither Origin nor Referer and no Content-Type', {}],
    ['neither Origin nor Referer on text/plain', { 'Content-Type': 'text/plain' }],
  ])('refuses %s with 403 in the error envelope', async (_name, headers) => {
    const res = await send(headers);
    expect(res.status).toBe(403);
    expect(await res.json()).toEqual({ error: { code: 'FORBIDDEN', message: expect.stringMatching(/refused/) } });
  });

  it.each([
    ['a JSON post (needs a CORS preflight from elsewhere)', JSON_TYPE, 'POST'],
    ['a post with an Idempotency-Key (needs a preflight too)', { 'Idempotency-Key': 'k1' }, 'POST'],
    ['a DELETE', {}, 'DELETE'],
    ['a PUT', {}, 'PUT'],
    ['a PATCH', {}, 'PATCH'],
  ])('lets a non-browser client send %s without Origin or Referer', async (_name, headers, method) => {
    expect((await send(headers, { method })).status).toBe(200);
  });

  it('leaves reads alone, whatever their Origin', async () => {
    expect((await send({ Origin: 'https://evil.example' }, { method: 'GET' })).status).toBe(200);
  });
});

const user: Principal = { kind: 'user', userId: 'u', email: 'u@example.com', sessionId: 's' };
const apiKey: Principal = { kind: 'apiKey', keyId: 'k', projectId: 'p', teamId: 't', name: 'ci', expiresAt: null };
const anonymous: Principal = { kind: 'anonymous', ip: '127.0.0.1' };

function apiApp(op: 'webhooks.test' | 'apiKeys.update' | 'artifacts.upload' | 'auth.login', principal: Principal) {
  const def = endpoints[op];
  const app = new Hono();
  app.on(def.method, '/x', async (c, next) => {
    c.set('principal', principal);
    await next();
  }, apiCookieWrites(def, () => APP), (c) => c.text('done'));
  app.onError(errorHandler(quiet));
  return { app, method: def.method };
}

async function call(op: Parameters<typeof apiApp>[0], principal: Principal, headers: Record<string, string>, body?: string) {
  const { app, method } = apiApp(op, principal);
  return app.request('/x', { method, headers, body });
}

describe('apiCookieWrites (/api/v1 and the account endpoints)', () => {
  it('refuses a body-less cookie POST (webhook test ping) from another origin or with no origin at all', async () => {
    expect((await call('webhooks.test', user, { Origin: 'http://localhost:1' })).status).toBe(403);
    expect((await call('webhooks.test', user, { Referer: 'http://localhost:1/x' })).status).toBe(403);
    expect((await call('webhooks.test', user, {})).status).toBe(403);
    expect((await call('webhooks.test', user, { Origin: APP })).status).toBe(200);
    // The SDK: JSON and an Idempotency-Key on every POST, no Origin.
    expect((await call('webhooks.test', user, { ...JSON_TYPE, 'Idempotency-Key': 'k' }, '{}')).status).toBe(200);
  });

  it('keeps cookie writes with a body JSON-only, even from {app_url}', async () => {
    const res = await call('apiKeys.update', user, { ...FORM, Origin: APP }, 'name=x');
    expect(res.status).toBe(403);
    expect(((await res.json()) as { error: { message: string } }).error.message).toBe('Signed-in writes must be sent as application/json');
    expect((await call('apiKeys.update', user, JSON_TYPE, '{}')).status).toBe(200);
  });

  it('accepts a cookie upload from the SDK (multipart with an Idempotency-Key) and refuses one from a form elsewhere', async () => {
    const multipart = { 'Content-Type': 'multipart/form-data; boundary=x' };
    expect((await call('artifacts.upload', user, { ...multipart, 'Idempotency-Key': 'k' }, '--x--')).status).toBe(200);
    expect((await call('artifacts.upload', user, multipart, '--x--')).status).toBe(403);
    expect((await call('artifacts.upload', user, { ...multipart, Origin: 'http://localhost:1' }, '--x--')).status).toBe(403);
  });

  it('does not check API-key callers: they hold no ambient credential', async () => {
    expect((await call('webhooks.test', apiKey, { Origin: 'http://localhost:1' })).status).toBe(200);
    expect((await call('artifacts.upload', apiKey, { 'Content-Type': 'multipart/form-data; boundary=x' }, '--x--')).status).toBe(200);
  });

  it('takes only JSON at POST /auth/login, which sets the session cookie', async () => {
    for (const headers of [{}, { 'Content-Type': 'text/plain' }, FORM]) {
      const res = await call('auth.login', anonymous, headers, '{"email":"a@b.c","password":"x"}');
      expect(res.status).toBe(403);
      expect(((await res.json()) as { error: { message: string } }).error.message).toBe('Account requests must be sent as application/json');
    }
    expect((await call('auth.login', anonymous, JSON_TYPE, '{}')).status).toBe(200);
  });
});
