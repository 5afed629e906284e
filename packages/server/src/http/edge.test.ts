/** The edge middleware on a real server: not-found, body limits and dashboard form posts all answer in the error envelope. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../testing/harness.js';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(async () => {
  await t?.close();
});

describe('edge', () => {
  it('answers an unknown API route with the 404 envelope, with security headers and a request id', async () => {
    const res = await fetch(`${t.url}/api/v1/nowhere`);
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ error: { code: 'NOT_FOUND', message: 'No route for GET /api/v1/nowhere' } });
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('x-request-id')).toBeTruthy();
  });

  it('answers an unknown page with the dashboard 404 page, with the same security headers', async () => {
    const res = await fetch(`${t.url}/nowhere`);
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    expect(await res.text()).toContain('There is no page at /nowhere');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('x-request-id')).toBeTruthy();
  });

  it('refuses an oversized account request with 413 in the error envelope', async () => {
    const res = await t.api('POST', '/auth/login', { body: { email: 'a@b.c', password: 'x'.repeat(70 * 1024) } });
    expect(res.status).toBe(413);
    expect(res.body).toEqual({ error: { code: 'PAYLOAD_TOO_LARGE', message: 'Request body is too large' } });
  });

  it('refuses a cross-site form post outside /api/v1, before the route runs', async () => {
    const form = { 'Content-Type': 'application/x-www-form-urlencoded' };
    const foreign = await fetch(`${t.url}/auth/logout`, { method: 'POST', headers: { ...form, Cookie: t.owner.cookie, Origin: 'https://evil.example' }, body: 'x=1' });
    expect(foreign.status).toBe(403);
    expect(((await foreign.json()) as { error: { code: string } }).error.code).toBe('FORBIDDEN');
    // The session survived: the logout never ran.
    expect((await t.api('GET', '/auth/me', { auth: t.owner })).status).toBe(200);
  });

  it('keeps the API rule under /api/v1: a cookie write must be JSON even from {app_url}', async () => {
    const res = await t.api('POST', '/teams', { auth: t.owner, body: 'name=x', headers: { 'Content-Type': 'application/x-www-form-urlencoded', Origin: new URL(t.url).origin } });
    expect(res.status).toBe(403);
    expect(res.body.error.message).toBe('Signed-in writes must be sent as application/json');
  });
});
