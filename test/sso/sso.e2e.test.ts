import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '@testreport/server/testing';
import { chromiumPath } from '../setup/chromium.mjs';
import { CLIENT, startFakeIssuer, startOidcProvider, type Accounts } from './providers.js';

const accounts: Accounts = new Map();
let op: Awaited<ReturnType<typeof startOidcProvider>>;
let fake: Awaited<ReturnType<typeof startFakeIssuer>>;
/** Passwords off, the real provider, teams managed by the `groups` claim. */
let sso: TestServer;
/** Passwords on, the hand-made issuer. */
let withFake: TestServer;
let browser: Browser;
const logLines: string[] = [];
const collect = (level: string) => (msg: string, extra?: unknown) => logLines.push(`${level}: ${msg} ${JSON.stringify(extra ?? {})}`);

beforeAll(async () => {
  op = await startOidcProvider(accounts);
  fake = await startFakeIssuer();
  sso = await startTestServer({
    passwordLogin: false,
    oidc: { issuer: op.issuer, clientId: CLIENT.id, clientSecret: CLIENT.secret, name: 'Acme SSO', allowedDomains: ['acme.test'], teamClaim: 'groups', manageTeams: true },
    logger: { error: collect('error'), warn: collect('warn'), info: collect('info'), debug() {} },
  });
  withFake = await startTestServer({
    oidc: { issuer: fake.issuer, clientId: CLIENT.id, clientSecret: CLIENT.secret, allowedDomains: ['fake.test'] },
    logger: { error() {}, warn: collect('fake warn'), info() {}, debug() {} },
  });
  op.start([`${sso.url}/auth/oidc/callback`]);
  browser = await chromium.launch({ executablePath: chromiumPath() });
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await sso?.close();
  await withFake?.close();
  await op?.close();
  await fake?.close();
});

/** The teams a user belongs to, by name, with the role. */
async function membershipsOf(t: TestServer, email: string): Promise<Record<string, string>> {
  const user = await t.server.services.deps.db.selectFrom('users').select('id').where('email', '=', email).executeTakeFirst();
  if (!user) return {};
  const teams = await t.server.services.teams.internal.listForUser(user.id);
  return Object.fromEntries(teams.map((team) => [team.name, team.role]));
}

/** Through the provider's own login and consent pages, in a fresh browser (no session anywhere). */
async function signInAtProvider(page: Page, login: string) {
  await page.getByRole('link', { name: 'Sign in with Acme SSO' }).click();
  await page.locator('input[name="login"]').fill(login);
  await page.locator('input[name="password"]').fill('any password');
  await page.getByRole('button', { name: 'Sign-in' }).click();
  await page.getByRole('button', { name: 'Continue' }).click();
}

describe('sign-in page', () => {
  it('with passwords off offers only single sign-on, and the password endpoints refuse', async () => {
    const html = await (await fetch(`${sso.url}/`)).text();
    expect(html).toContain('Sign in with Acme SSO');
    expect(html).not.toContain('type="password"');
    const api = await fetch(`${sso.url}/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: sso.owner.email, password: sso.owner.password }) });
    expect(api.status).toBe(403);
    expect(((await api.json()) as { error: unknown }).error).toMatchObject({ code: 'FORBIDDEN', message: expect.stringContaining('Password sign-in is turned off') });
    const form = await fetch(`${sso.url}/signin`, { method: 'POST', headers: { origin: sso.url }, body: new URLSearchParams({ email: sso.owner.email, password: sso.owner.password }), redirect: 'manual' });
    expect(form.status).toBe(404);
  });

  it('with passwords on shows both ways in', async () => {
    const html = await (await fetch(`${withFake.url}/`)).text();
    expect(html).toContain('Sign in with SSO');
    expect(html).toContain('type="password"');
  });
});

describe('single sign-on through oidc-provider in Chromium', () => {
  it('signs in through the provider, lands on the deep link and applies the team claim', async () => {
    await sso.server.services.teams.internal.createWithOwner(sso.owner.userId, 'QA');
    accounts.set('alice', { email: 'Alice@acme.test', email_verified: true, name: 'Alice A.', groups: ['Team A:member', '/QA:viewer', 'everyone', 'Nowhere:admin'] });
    const context = await browser.newContext();
    const page = await context.newPage();
    const deepLink = `${sso.url}/projects/${sso.projectId}/runs?branch=main`;
    await page.goto(deepLink);
    await signInAtProvider(page, 'alice');
    await page.waitForURL(deepLink);
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBeTruthy();
    expect(await page.locator('body').textContent()).toContain('Project A');
    expect(await membershipsOf(sso, 'alice@acme.test')).toEqual({ 'Team A': 'member', QA: 'viewer' });
    expect(logLines.some((l) => l.startsWith('info: audit: sso sign-in') && l.includes('"created":true'))).toBe(true);
    expect(logLines.filter((l) => l.startsWith('info: audit: sso membership added'))).toHaveLength(2);
    expect(logLines.some((l) => l.startsWith('warn: sso: the team claim names no existing team') && l.includes('Nowhere'))).toBe(true);
    await context.close();
  });

  it('at the next sign-in changes roles and removes the teams the claim no longer lists, keeping hand-made memberships', async () => {
    const alice = (await sso.server.services.deps.db.selectFrom('users').select('id').where('email', '=', 'alice@acme.test').executeTakeFirstOrThrow()).id;
    const handMade = await sso.server.services.teams.internal.createWithOwner(sso.owner.userId, 'Hand');
    await sso.server.services.deps.db.insertInto('team_members').values({ id: crypto.randomUUID(), team_id: handMade.id, user_id: alice, role: 'member', joined_at: new Date().toISOString() }).execute();
    accounts.set('alice', { email: 'alice@acme.test', email_verified: true, name: 'Alice A.', groups: ['Team A:admin'] });
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${sso.url}/`);
    await signInAtProvider(page, 'alice');
    await page.waitForURL(`${sso.url}/**`);
    expect(await membershipsOf(sso, 'alice@acme.test')).toEqual({ 'Team A': 'admin', Hand: 'member' });
    // Same subject, same account: no second user was made.
    const rows = await sso.server.services.deps.db.selectFrom('user_identities').selectAll().where('user_id', '=', alice).execute();
    expect(rows).toHaveLength(1);
    expect(logLines.some((l) => l.startsWith('info: audit: sso membership role changed') && l.includes('"to":"admin"'))).toBe(true);
    expect(logLines.some((l) => l.startsWith('info: audit: sso membership removed'))).toBe(true);
    await context.close();
  });

  it('refuses a first sign-in from a domain that is not allowed, with a page that says why', async () => {
    accounts.set('mallory', { email: 'mallory@other.test', email_verified: true, name: 'Mallory' });
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${sso.url}/`);
    const refused = page.waitForResponse((r) => r.url().startsWith(`${sso.url}/auth/oidc/callback`));
    await signInAtProvider(page, 'mallory');
    expect((await refused).status()).toBe(403);
    await expect.poll(() => page.getByRole('alert').textContent()).toContain('Accounts for other.test addresses are not created here');
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Not signed in');
    expect(await membershipsOf(sso, 'mallory@other.test')).toEqual({});
    expect((await context.cookies()).some((c) => c.name === 'testreport_session')).toBe(false);
    await context.close();
  });

  it('refuses the callback URL replayed after a sign-in (its code and state were used)', async () => {
    accounts.set('bob', { email: 'bob@acme.test', email_verified: true, name: 'Bob' });
    const context = await browser.newContext();
    const page = await context.newPage();
    let callback = '';
    page.on('request', (r) => { if (r.url().startsWith(`${sso.url}/auth/oidc/callback`)) callback = r.url(); });
    const stateCookie = new Promise<string>((resolve) => page.on('response', async (r) => {
      if (r.url().startsWith(`${sso.url}/auth/oidc/start`)) resolve(/testreport_oidc=([^;]+)/.exec((await r.allHeaders())['set-cookie'] ?? '')?.[1] ?? '');
    }));
    await page.goto(`${sso.url}/`);
    await signInAtProvider(page, 'bob');
    await page.waitForURL(`${sso.url}/`);
    const replay = await fetch(callback, { headers: { cookie: `testreport_oidc=${await stateCookie}` }, redirect: 'manual' });
    expect(replay.status).toBe(400);
    expect(replay.headers.get('set-cookie') ?? '').not.toContain('testreport_session=');
    expect(await replay.text()).toContain('not valid any more');
    await context.close();
  });
});

/** The start and callback of one sign-in at the hand-made issuer, with plain requests. */
async function fakeSignIn(opts: { tamper?: (callback: URL) => void } = {}) {
  const start = await fetch(`${withFake.url}/auth/oidc/start?next=${encodeURIComponent('/projects/x/runs')}`, { redirect: 'manual' });
  expect(start.status).toBe(302);
  const cookie = start.headers.getSetCookie().find((c) => c.startsWith('testreport_oidc='))!.split(';')[0]!;
  const authorize = await fetch(start.headers.get('location')!, { redirect: 'manual' });
  const callback = new URL(authorize.headers.get('location')!);
  opts.tamper?.(callback);
  const res = await fetch(callback, { headers: { cookie }, redirect: 'manual' });
  return { res, text: await res.text(), callback, cookie, session: res.headers.getSetCookie().some((c) => c.startsWith('testreport_session=') && !c.includes('Max-Age=0')) };
}

describe('single sign-on refuses what it cannot verify (hand-made issuer)', () => {
  it('accepts a correct answer (the control for the cases below) and refuses the same callback twice', async () => {
    fake.mode = 'good';
    // Someone signed up with Eve's address and a password of their own, never verified.
    const json = { 'content-type': 'application/json' };
    const squatter = { email: 'eve@fake.test', password: 'squatters password' };
    expect((await fetch(`${withFake.url}/auth/signup`, { method: 'POST', headers: json, body: JSON.stringify(squatter) })).status).toBe(201);
    const ok = await fakeSignIn();
    expect(ok.res.status).toBe(303);
    expect(ok.res.headers.get('location')).toBe('/projects/x/runs');
    expect(ok.session).toBe(true);
    const replay = await fetch(ok.callback, { headers: { cookie: ok.cookie }, redirect: 'manual' });
    expect(replay.status).toBe(400);
    expect(replay.headers.getSetCookie().some((c) => c.startsWith('testreport_session='))).toBe(false);
    // Eve's sign-in linked that account and verified it; the squatter's password no longer opens it.
    const login = await fetch(`${withFake.url}/auth/login`, { method: 'POST', headers: json, body: JSON.stringify(squatter) });
    expect(login.status).toBe(401);
  });

  it('refuses a tampered state', async () => {
    fake.mode = 'good';
    const r = await fakeSignIn({ tamper: (u) => u.searchParams.set('state', u.searchParams.get('state')!.slice(0, -2) + 'xx') });
    expect(r.res.status).toBe(400);
    expect(r.session).toBe(false);
    expect(r.text).toContain('not valid any more');
  });

  it('refuses a callback without the state cookie of the browser that started it', async () => {
    fake.mode = 'good';
    const start = await fetch(`${withFake.url}/auth/oidc/start`, { redirect: 'manual' });
    const callback = (await fetch(start.headers.get('location')!, { redirect: 'manual' })).headers.get('location')!;
    const res = await fetch(callback, { redirect: 'manual' });
    expect(res.status).toBe(400);
  });

  it('finishes on another server of the fleet than the one it started on (the pending sign-in is in the database)', async () => {
    fake.mode = 'good';
    const cfg = withFake.server.services.deps.config;
    const second = await startTestServer({
      databaseUrl: cfg.databaseUrl, secret: cfg.secret, publicUrl: cfg.publicUrl,
      oidc: { issuer: fake.issuer, clientId: CLIENT.id, clientSecret: CLIENT.secret, allowedDomains: ['fake.test'] },
    });
    try {
      const r = await fakeSignIn({ tamper: (u) => (u.port = new URL(second.server.url).port) });
      expect(r.res.status).toBe(303);
      const session = r.res.headers.getSetCookie().find((c) => c.startsWith('testreport_session='))!.split(';')[0]!;
      // The session made by the second server is good on the first.
      const me = await fetch(`${withFake.url}/auth/me`, { headers: { cookie: session } });
      expect(me.status).toBe(200);
      expect(((await me.json()) as { user: { email: string } }).user.email).toBe('eve@fake.test');
    } finally {
      await second.close();
    }
  });

  // What openid-client found wrong, as the server logged it: each token is refused for its own fault.
  const faults = { 'wrong-aud': /aud\W+\(audience\) claim value/, expired: /exp\W+\(expiration time\) claim value, expiration is past/, 'other-key': /signature/i } as const;
  for (const mode of ['wrong-aud', 'expired', 'other-key'] as const) {
    it(`refuses an ID token that is ${mode}`, async () => {
      fake.mode = mode;
      const before = logLines.length;
      const r = await fakeSignIn();
      expect(r.res.status).toBe(403);
      expect(r.session).toBe(false);
      expect(r.text).toContain('could not be verified');
      const logged = logLines.slice(before).filter((l) => l.startsWith('fake warn: audit: sso sign-in refused'));
      expect(logged).toHaveLength(1);
      expect(logged[0]).toMatch(faults[mode]);
    });
  }
});
