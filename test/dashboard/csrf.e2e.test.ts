import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, tokenFrom, waitForMail, type TestServer, type TestUser } from '@testreport/server/testing';

/**
 * Issue 33 in a real browser. The attacker's page is served on another port of the same host:
 * same site as the dashboard (SameSite=Lax lets the session cookie ride along), another origin.
 */
const POLL = { timeout: 15_000 };

let t: TestServer;
let browser: Browser;
let attacker: Server;
let evilOrigin: string;

/** The attacker's page; `?nr` adds `<meta name="referrer" content="no-referrer">` (no Referer). */
function startAttacker(): Promise<Server> {
  const server = createServer((req, res) => {
    const noReferrer = (req.url ?? '').includes('nr');
    res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
    res.end(`<!doctype html><html><head>${noReferrer ? '<meta name="referrer" content="no-referrer">' : ''}<title>cute cats</title></head><body>cats</body></html>`);
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

/**
 * The POSTs the server answered, with the headers as they arrived (the browser's network stack adds
 * Origin and Cookie; Playwright cannot show them for responses Chromium blocks as opaque).
 */
function wireLog(appUrl: string) {
  const port = String(new URL(appUrl).port);
  const entries: Array<{ path: string; status: number; origin: string | null; referer: string | null; cookie: boolean }> = [];
  const onFinish = (msg: unknown) => {
    const { request, response } = msg as { request: IncomingMessage; response: ServerResponse };
    if (request.method !== 'POST' || !(request.headers.host ?? '').endsWith(`:${port}`)) return;
    entries.push({ path: request.url ?? '', status: response.statusCode, origin: request.headers.origin ?? null, referer: request.headers.referer ?? null, cookie: (request.headers.cookie ?? '').includes('testreport_session=') });
  };
  subscribe('http.server.response.finish', onFinish);
  return { entries, stop: () => unsubscribe('http.server.response.finish', onFinish) };
}

async function signedIn(user: TestUser): Promise<{ ctx: BrowserContext; page: Page }> {
  const ctx = await browser.newContext({ baseURL: t.url });
  const page = await ctx.newPage();
  await page.goto('/');
  await page.getByLabel('Email').fill(user.email);
  await page.getByLabel('Password').fill(user.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  // The owner has a project: signed in, / leads to its runs.
  await page.waitForURL(/\/projects\/[^/]+\/runs$/);
  expect((await ctx.cookies(t.url)).map((c) => c.name)).toContain('testreport_session');
  return { ctx, page };
}

/** From the attacker's page: credentialed no-cors fetches (no Content-Type, or text/plain). */
async function forgeFetches(page: Page, requests: Array<{ url: string; body?: string }>) {
  return page.evaluate(async (list) => {
    for (const r of list) {
      // A Blob without a type is sent with no Content-Type at all; a string as text/plain.
      await fetch(r.url, { method: 'POST', mode: 'no-cors', credentials: 'include', body: r.body === undefined ? new Blob([]) : r.body }).catch(() => undefined);
      await fetch(r.url, { method: 'POST', mode: 'no-cors', credentials: 'include' }).catch(() => undefined);
    }
  }, requests);
}

/** From the attacker's page: a plain HTML form post; returns the status the dashboard answered. */
async function forgeForm(page: Page, action: string, fields: Record<string, string> = {}): Promise<number> {
  const [res] = await Promise.all([
    page.waitForResponse((r) => r.url() === action && r.request().method() === 'POST'),
    page.evaluate(
      ({ action, fields }) => {
        const doc = (globalThis as any).document;
        const form = doc.createElement('form');
        form.method = 'POST';
        form.action = action;
        for (const [name, value] of Object.entries(fields)) {
          const input = doc.createElement('input');
          input.name = name;
          input.value = value;
          form.appendChild(input);
        }
        doc.body.appendChild(form);
        form.submit();
      },
      { action, fields },
    ),
  ]);
  // Let the navigation to the answer commit before the caller navigates again.
  await page.waitForURL(action);
  return res.status();
}

beforeAll(async () => {
  t = await startTestServer();
  attacker = await startAttacker();
  // localhost like the dashboard ({app_url} is http://localhost:<port>): same site, different origin.
  evilOrigin = `http://localhost:${(attacker.address() as AddressInfo).port}`;
  expect(new URL(t.url).hostname).toBe('localhost');
  browser = await chromium.launch({ executablePath: '/usr/bin/chromium' });
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await new Promise((r) => attacker?.close(r));
  await t?.close();
});

describe('a page on another origin of the same site, in Chromium', () => {
  it.each([
    ['with its Referer', ''],
    ['with no-referrer (no Referer)', '?nr'],
  ])('cannot delete a webhook, ping it, revoke a key, remove a member or sign the user out (%s)', { timeout: 90_000 }, async (_name, query) => {
    const hookUrl = `http://127.0.0.1:9/hook${query ? '-nr' : ''}`;
    const hook = (await t.api('POST', '/webhooks', { auth: t.apiKey, body: { projectId: t.projectId, url: hookUrl, events: ['run.failed'] } })).body;
    const key = (await t.api('POST', '/api-keys', { auth: t.owner, body: { projectId: t.projectId, name: 'target' } })).body;
    const member = await t.createUser({ teamId: t.teamId, role: 'member' });
    const members = (await t.api('GET', `/team-members?teamId=${t.teamId}`, { auth: t.owner })).body.data as Array<{ id: string; userId: string }>;
    const memberId = members.find((m) => m.userId === member.userId)!.id;
    const settings = `${t.url}/projects/${t.projectId}/settings`;

    const { ctx, page } = await signedIn(t.owner);
    const evil = await ctx.newPage();
    await evil.goto(`${evilOrigin}/${query}`);
    const sent = wireLog(t.url);
    await forgeFetches(evil, [
      { url: `${settings}/webhooks/${hook.id}/delete` },
      { url: `${settings}/webhooks/${hook.id}/test` },
      { url: `${settings}/keys/${key.id}/revoke` },
      { url: `${settings}/members/${memberId}/remove` },
      { url: `${t.url}/api/v1/webhooks/${hook.id}/test` },
      { url: `${t.url}/api/v1/teams`, body: JSON.stringify({ name: 'forged' }) },
      { url: `${t.url}/signout` },
      { url: `${t.url}/auth/logout`, body: '{}' },
    ]);
    // The forged requests did reach the server with the victim's cookie: only the origin check stands in the way.
    await expect.poll(() => sent.entries.length, POLL).toBe(16);
    sent.stop();
    // Chromium names the attacker's origin even under no-referrer; only the Referer goes.
    expect(sent.entries.filter((s) => !s.cookie || s.origin !== evilOrigin || s.referer !== (query ? null : `${evilOrigin}/`))).toEqual([]);
    expect(sent.entries.filter((s) => s.status !== 403)).toEqual([]);

    expect(await forgeForm(evil, `${settings}/webhooks/${hook.id}/delete`)).toBe(403);
    await evil.goto(`${evilOrigin}/${query}`);
    expect(await forgeForm(evil, `${settings}/keys/${key.id}/revoke`)).toBe(403);
    await evil.goto(`${evilOrigin}/${query}`);
    expect(await forgeForm(evil, `${t.url}/signout`)).toBe(403);

    // Nothing changed: the webhook is there and was never pinged, the key works, the member stays, the user is signed in.
    expect((await t.api('GET', `/webhooks/${hook.id}`, { auth: t.owner })).status).toBe(200);
    expect((await t.api('GET', `/webhooks/${hook.id}/deliveries`, { auth: t.owner })).body.data).toEqual([]);
    expect((await t.api('GET', '/me', { auth: key.key })).status).toBe(200);
    expect((await t.api('GET', `/team-members?teamId=${t.teamId}`, { auth: t.owner })).body.data.map((m: { userId: string }) => m.userId)).toContain(member.userId);
    expect((await t.api('GET', '/teams', { auth: t.owner })).body.data.map((x: { name: string }) => x.name)).not.toContain('forged');
    await page.goto(`/projects/${t.projectId}/settings/webhooks`);
    expect(new URL(page.url()).pathname).toBe(`/projects/${t.projectId}/settings/webhooks`);
    const del = page.getByRole('button', { name: `Delete webhook ${hookUrl}` });
    await del.waitFor();

    // The same action from the dashboard's own page still works (the browser sends Origin {app_url}).
    page.once('dialog', (d) => d.accept());
    await del.click();
    await expect.poll(() => t.api('GET', `/webhooks/${hook.id}`, { auth: t.owner }).then((r) => r.status), POLL).toBe(404);
    await ctx.close();
  });

  it('cannot sign the visitor in to the attacker\'s account (login CSRF)', { timeout: 60_000 }, async () => {
    const mallory = await t.createUser();
    const ctx = await browser.newContext({ baseURL: t.url });
    const evil = await ctx.newPage();
    await evil.goto(`${evilOrigin}/`);
    const credentials = JSON.stringify({ email: mallory.email, password: mallory.password });
    await forgeFetches(evil, [{ url: `${t.url}/auth/login`, body: credentials }]);
    await evil.evaluate(
      async ({ url, credentials }) => {
        await fetch(url, { method: 'POST', mode: 'no-cors', credentials: 'include', body: new Blob([credentials]) }).catch(() => undefined);
      },
      { url: `${t.url}/auth/login`, credentials },
    );
    expect(await forgeForm(evil, `${t.url}/signin`, { email: mallory.email, password: mallory.password, next: '/' })).toBe(403);

    expect((await ctx.cookies(t.url)).map((c) => c.name)).not.toContain('testreport_session');
    const page = await ctx.newPage();
    await page.goto('/');
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
    await ctx.close();
  });
});

describe('?next= in Chromium', () => {
  it.each([['/%09/evil.example'], ['/%09%5Cevil.example'], ['/%5C%5Cevil.example'], ['/%0A/evil.example']])(
    'keeps a signed-in user on the dashboard for ?next=%s',
    { timeout: 60_000 },
    async (next) => {
      const { ctx, page } = await signedIn(t.owner);
      // Were the browser sent off-site, it would land here (and not in DNS).
      await ctx.route((url) => url.hostname === 'evil.example', (route) => route.fulfill({ status: 200, contentType: 'text/html', body: '<h1>evil</h1>' }));
      const res = await page.goto(`/?next=${next}`);
      expect(res!.status()).toBe(200);
      expect(new URL(page.url()).origin).toBe(t.url);
      await ctx.close();
    },
  );
});

describe('the mailed-link pages (Referrer-Policy: no-referrer) still post from their own origin', () => {
  it('resets a password on the mailed page, then signs in with it', { timeout: 60_000 }, async () => {
    const user = await t.createUser();
    await t.api('POST', '/auth/forgot-password', { body: { email: user.email } });
    const link = tokenFrom(await waitForMail(t.dataDir, user.email, /reset/i), 'reset-password');
    const ctx = await browser.newContext({ baseURL: t.url });
    const page = await ctx.newPage();
    await page.goto(link.url);
    await page.getByLabel('New password').fill('a fresh password 42');
    await page.getByRole('button', { name: 'Set password' }).click();
    await expect.poll(() => page.locator('#status').getAttribute('class'), POLL).toBe('notice');
    expect((await t.api('POST', '/auth/login', { body: { email: user.email, password: 'a fresh password 42' } })).status).toBe(200);
    await ctx.close();
  });
});
