import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer, type TestUser } from '../testing/harness.js';
import { readOutbox, tokenFrom, uniqueEmail, waitForMail } from '../testing/outbox.js';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(async () => {
  await t?.close();
});

const freshEmail = () => uniqueEmail('person');
const PASSWORD = 'a long enough password';

/** The session cookie a login answer set, as a TestUser usable with `t.api`. */
function sessionFrom(res: { headers: Headers }, email: string, password: string): TestUser {
  const cookie = res.headers.getSetCookie().find((c) => c.startsWith('testreport_session='));
  if (!cookie) throw new Error('no session cookie was set');
  return { userId: '', email, password, cookie: cookie.split(';')[0] };
}

async function login(email: string, password: string) {
  return t.api('POST', '/auth/login', { body: { email, password } });
}

async function signUpAndVerify(email = freshEmail()) {
  const before = readOutbox(t.dataDir).length;
  const res = await t.api('POST', '/auth/signup', { body: { email, password: PASSWORD } });
  expect(res.status).toBe(201);
  const { token } = tokenFrom(await waitForMail(t.dataDir, email, /verify/i, { after: before }), 'verify-email');
  expect((await t.api('POST', '/auth/verify-email', { body: { token } })).status).toBe(200);
  return email;
}

describe('sign-up, verification, sign-in, onboarding, sign-out', () => {
  it('walks the whole first-use path with the links from the outbox', async () => {
    const email = freshEmail();
    const signup = await t.api('POST', '/auth/signup', { body: { email: email.toUpperCase(), password: PASSWORD, name: 'Ada' } });
    expect(signup.status).toBe(201);
    expect(signup.body.user).toMatchObject({ email, name: 'Ada', emailVerified: false, avatarUrl: null });
    expect(signup.body.message).toMatch(/inbox/);

    const mail = await waitForMail(t.dataDir, email, /verify/i);
    const link = tokenFrom(mail, 'verify-email');
    expect(link.url.startsWith(`${t.url}/verify-email?token=`)).toBe(true);
    expect(mail.html).toContain('/verify-email?token=');

    const page = await fetch(link.url);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('data-flow="verify"');

    const early = await login(email, PASSWORD);
    expect(early.status).toBe(403);
    expect(early.body.error.code).toBe('EMAIL_NOT_VERIFIED');

    const verified = await t.api('POST', '/auth/verify-email', { body: { token: link.token } });
    expect(verified.status).toBe(200);
    const again = await t.api('POST', '/auth/verify-email', { body: { token: link.token } });
    expect(again.status).toBe(400);
    expect(again.body.error).toMatchObject({ code: 'VALIDATION_ERROR', details: { field: 'token', reason: 'invalid_value' } });
    expect(again.body.error.message).toMatch(/already been used/);

    const signedIn = await login(email, PASSWORD);
    expect(signedIn.status).toBe(200);
    expect(signedIn.body.user).toMatchObject({ email, emailVerified: true });
    expect(Date.parse(signedIn.body.expiresAt) - Date.now()).toBeGreaterThan(13 * 24 * 3600 * 1000);
    const user = sessionFrom(signedIn, email, PASSWORD);

    const me = await t.api('GET', '/auth/me', { auth: user });
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ user: { email, emailVerified: true }, teams: [] });

    const onboarding = await t.api('POST', '/auth/onboarding', { auth: user, body: { teamName: 'Ada Team', projectName: 'Web' } });
    expect(onboarding.status).toBe(201);
    expect(onboarding.body.team).toMatchObject({ name: 'Ada Team' });
    expect(onboarding.body.project).toMatchObject({ name: 'Web', teamId: onboarding.body.team.id });
    const second = await t.api('POST', '/auth/onboarding', { auth: user, body: { teamName: 'Again', projectName: 'Again' } });
    expect(second.status).toBe(409);
    expect(second.body.error.code).toBe('CONFLICT');

    const meAfter = await t.api('GET', '/auth/me', { auth: user });
    expect(meAfter.body.teams).toEqual([expect.objectContaining({ id: onboarding.body.team.id, name: 'Ada Team', role: 'owner' })]);
    const projects = await t.api('GET', `/projects?teamId=${onboarding.body.team.id}`, { auth: user });
    expect(projects.body.data.map((p: { name: string }) => p.name)).toEqual(['Web']);

    const out = await t.api('POST', '/auth/logout', { auth: user, body: {} });
    expect(out.status).toBe(200);
    const cleared = out.headers.getSetCookie().find((c) => c.startsWith('testreport_session='));
    expect(cleared).toMatch(/Max-Age=0/);
    expect((await t.api('GET', '/auth/me', { auth: user })).status).toBe(401);
    expect((await t.api('GET', '/teams', { auth: user })).status).toBe(401);
  });

  it('sets the session cookie HttpOnly, SameSite=Lax, Path=/, for 14 days, not Secure on http', async () => {
    const res = await login(t.owner.email, t.owner.password);
    const cookie = res.headers.getSetCookie().find((c) => c.startsWith('testreport_session='))!;
    expect(cookie).toMatch(/; HttpOnly/);
    expect(cookie).toMatch(/; SameSite=Lax/);
    expect(cookie).toMatch(/; Path=\//);
    expect(cookie).toMatch(/; Max-Age=1209600/);
    expect(cookie).not.toMatch(/Secure/);
  });

  it('marks the cookie Secure when {app_url} is https', async () => {
    const https = await startTestServer({ publicUrl: 'https://reports.example.test' });
    try {
      const res = await https.server.fetch(
        new Request('https://reports.example.test/auth/login', {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify({ email: https.owner.email, password: https.owner.password }),
        }),
      );
      expect(res.status).toBe(200);
      expect(res.headers.getSetCookie().find((c) => c.startsWith('testreport_session='))).toMatch(/; Secure/);
    } finally {
      await https.close();
    }
  });

  it('answers an unknown e-mail and a wrong password the same way', async () => {
    const unknown = await login(freshEmail(), PASSWORD);
    const wrong = await login(t.owner.email, 'not the password');
    expect(unknown.status).toBe(401);
    expect(wrong.status).toBe(401);
    expect(unknown.body).toEqual(wrong.body);
    expect(unknown.headers.getSetCookie()).toEqual([]);
  });

  it('gives a taken address the same sign-up answer and tells its owner by mail', async () => {
    const before = readOutbox(t.dataDir).length;
    const res = await t.api('POST', '/auth/signup', { body: { email: t.owner.email, password: PASSWORD } });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual(['message', 'user']);
    expect(res.body.user).toMatchObject({ email: t.owner.email, emailVerified: false });
    expect(res.body.user.id).not.toBe(t.owner.userId);
    const mail = await waitForMail(t.dataDir, t.owner.email, /tried to sign up/, { after: before });
    expect(mail.text).not.toMatch(/token=/);
    // The stored account is untouched: the old password still works, the new one does not.
    expect((await login(t.owner.email, t.owner.password)).status).toBe(200);
    expect((await login(t.owner.email, PASSWORD)).status).toBe(401);
  });

  it('lets the mailbox owner, not a second sign-up, choose the password of an unverified account', async () => {
    const email = freshEmail();
    await t.api('POST', '/auth/signup', { body: { email, password: 'first password here' } });
    const firstVerify = tokenFrom(await waitForMail(t.dataDir, email, /verify/i), 'verify-email');
    const before = readOutbox(t.dataDir).length;
    const second = await t.api('POST', '/auth/signup', { body: { email, password: PASSWORD } });
    expect(second.status).toBe(201);
    const finish = tokenFrom(await waitForMail(t.dataDir, email, /finish setting up/i, { after: before }), 'reset-password');
    // The earlier verification link no longer works, so the first sign-up's password cannot win.
    expect((await t.api('POST', '/auth/verify-email', { body: { token: firstVerify.token } })).status).toBe(400);
    expect((await t.api('POST', '/auth/reset-password', { body: { token: finish.token, password: 'mailbox owner choice' } })).status).toBe(200);
    expect((await login(email, 'first password here')).status).toBe(401);
    const ok = await login(email, 'mailbox owner choice');
    expect(ok.status).toBe(200);
    expect(ok.body.user.emailVerified).toBe(true);
  });

  it('validates e-mail and password rules with the field named', async () => {
    const short = await t.api('POST', '/auth/signup', { body: { email: freshEmail(), password: 'seven77' } });
    expect(short.status).toBe(400);
    expect(short.body.error.details).toMatchObject({ field: 'password', reason: 'out_of_range' });
    const long = await t.api('POST', '/auth/signup', { body: { email: freshEmail(), password: 'x'.repeat(257) } });
    expect(long.status).toBe(400);
    expect(long.body.error.details.field).toBe('password');
    const bad = await t.api('POST', '/auth/signup', { body: { email: 'not-an-email', password: PASSWORD } });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details.field).toBe('email');
    const missing = await t.api('POST', '/auth/login', { body: { email: freshEmail() } });
    expect(missing.body.error.details).toMatchObject({ field: 'password', reason: 'required' });
  });

  it('lets an unverified user see /auth/me and sign out, and nothing else', async () => {
    const u = await t.createUser({ verified: false });
    const me = await t.api('GET', '/auth/me', { auth: u });
    expect(me.status).toBe(200);
    expect(me.body.user).toMatchObject({ email: u.email, emailVerified: false });
    for (const res of [
      await t.api('GET', '/teams', { auth: u }),
      await t.api('POST', '/auth/onboarding', { auth: u, body: { teamName: 'T', projectName: 'P' } }),
      await t.api('GET', `/projects?teamId=${t.teamId}`, { auth: u }),
    ]) {
      expect(res.status).toBe(403);
      expect(res.body.error.code).toBe('EMAIL_NOT_VERIFIED');
    }
    expect((await t.api('POST', '/auth/logout', { auth: u, body: {} })).status).toBe(200);
  });

  it('onboards atomically: when the project cannot be written, the team is not kept either', async () => {
    const u = await t.createUser();
    const principal = { kind: 'user' as const, userId: u.userId, email: u.email, sessionId: 'test' };
    // The route's validation would refuse a missing name; past it, the database's NOT NULL does.
    await expect(t.server.services.accounts.onboarding(principal, { teamName: 'Kept?', projectName: null as unknown as string })).rejects.toThrow();
    expect((await t.api('GET', '/teams', { auth: u })).body.data).toEqual([]);
    const retry = await t.api('POST', '/auth/onboarding', { auth: u, body: { teamName: 'Second try', projectName: 'Web' } });
    expect(retry.status).toBe(201);
  });
});

describe('password reset', () => {
  it('resets with a single-use link, ends every session and keeps unknown e-mails indistinguishable', async () => {
    const email = await signUpAndVerify();
    const a = sessionFrom(await login(email, PASSWORD), email, PASSWORD);
    const b = sessionFrom(await login(email, PASSWORD), email, PASSWORD);

    const before = readOutbox(t.dataDir).length;
    const unknownEmail = freshEmail();
    const unknown = await t.api('POST', '/auth/forgot-password', { body: { email: unknownEmail } });
    const known = await t.api('POST', '/auth/forgot-password', { body: { email } });
    expect(unknown.status).toBe(200);
    expect(known.status).toBe(200);
    expect(unknown.body).toEqual(known.body);

    const link = tokenFrom(await waitForMail(t.dataDir, email, /reset/i, { after: before }), 'reset-password');
    expect(link.url.startsWith(`${t.url}/reset-password?token=`)).toBe(true);
    expect(readOutbox(t.dataDir).some((m) => m.to === unknownEmail)).toBe(false);
    const page = await fetch(link.url);
    expect(await page.text()).toContain('data-flow="reset"');

    const reset = await t.api('POST', '/auth/reset-password', { body: { token: link.token, password: 'a brand new password' } });
    expect(reset.status).toBe(200);
    for (const s of [a, b]) expect((await t.api('GET', '/auth/me', { auth: s })).status).toBe(401);

    const reuse = await t.api('POST', '/auth/reset-password', { body: { token: link.token, password: 'yet another password' } });
    expect(reuse.status).toBe(400);
    expect(reuse.body.error.details).toMatchObject({ field: 'token', reason: 'invalid_value' });
    expect((await login(email, PASSWORD)).status).toBe(401);
    expect((await login(email, 'a brand new password')).status).toBe(200);
    await waitForMail(t.dataDir, email, /password was changed/);
  });

  it('keeps only the newest reset link valid and refuses a made-up token', async () => {
    const email = await signUpAndVerify();
    const before = readOutbox(t.dataDir).length;
    await t.api('POST', '/auth/forgot-password', { body: { email } });
    const first = tokenFrom(await waitForMail(t.dataDir, email, /reset/i, { after: before }), 'reset-password');
    const between = readOutbox(t.dataDir).length;
    await t.api('POST', '/auth/forgot-password', { body: { email } });
    const second = tokenFrom(await waitForMail(t.dataDir, email, /reset/i, { after: between }), 'reset-password');
    expect((await t.api('POST', '/auth/reset-password', { body: { token: first.token, password: PASSWORD + '1' } })).status).toBe(400);
    expect((await t.api('POST', '/auth/reset-password', { body: { token: 'made-up', password: PASSWORD + '1' } })).status).toBe(400);
    expect((await t.api('POST', '/auth/reset-password', { body: { token: second.token, password: PASSWORD + '2' } })).status).toBe(200);
  });
});

describe('link expiry (injectable clock)', () => {
  let clock: TestServer;
  let now = new Date('2030-01-01T00:00:00Z');
  beforeAll(async () => {
    clock = await startTestServer({ now: () => now });
  });
  afterAll(async () => {
    await clock?.close();
  });

  it('refuses a reset link after 1 hour and a verification link after 24 hours', async () => {
    const email = `clock-${Date.now()}@example.test`;
    await clock.api('POST', '/auth/signup', { body: { email, password: PASSWORD } });
    const verify = tokenFrom(await waitForMail(clock.dataDir, email, /verify/i), 'verify-email');
    now = new Date(now.getTime() + 24 * 3600 * 1000 + 1000);
    const late = await clock.api('POST', '/auth/verify-email', { body: { token: verify.token } });
    expect(late.status).toBe(400);
    expect(late.body.error.message).toMatch(/expired/);

    await clock.api('POST', '/auth/forgot-password', { body: { email } });
    const reset = tokenFrom(await waitForMail(clock.dataDir, email, /reset/i), 'reset-password');
    now = new Date(now.getTime() + 61 * 60 * 1000);
    const expired = await clock.api('POST', '/auth/reset-password', { body: { token: reset.token, password: 'too late for this' } });
    expect(expired.status).toBe(400);
    expect(expired.body.error).toMatchObject({ code: 'VALIDATION_ERROR', details: { field: 'token' } });
    expect(expired.body.error.message).toMatch(/expired/);
  });

  it('ends a session after 14 days', async () => {
    const res = await clock.api('POST', '/auth/login', { body: { email: clock.owner.email, password: clock.owner.password } });
    const cookie = res.headers.getSetCookie()[0].split(';')[0];
    const user = { ...clock.owner, cookie };
    expect((await clock.api('GET', '/auth/me', { auth: user })).status).toBe(200);
    now = new Date(now.getTime() + 14 * 24 * 3600 * 1000 + 1000);
    expect((await clock.api('GET', '/auth/me', { auth: user })).status).toBe(401);
  });
});

describe('CSRF defence for cookie writes', () => {
  it('refuses text/plain bodies and foreign origins, accepts JSON from {app_url}', async () => {
    const plain = await t.api('POST', '/teams', { auth: t.owner, body: JSON.stringify({ name: 'csrf' }), headers: { 'Content-Type': 'text/plain' } });
    expect(plain.status).toBe(403);
    expect(plain.body.error.code).toBe('FORBIDDEN');
    const foreign = await t.api('POST', '/teams', { auth: t.owner, body: { name: 'csrf' }, headers: { Origin: 'https://evil.example' } });
    expect(foreign.status).toBe(403);
    const foreignDelete = await t.api('DELETE', `/teams/${t.teamId}`, { auth: t.owner, headers: { Origin: 'https://evil.example' } });
    expect(foreignDelete.status).toBe(403);
    const logoutForeign = await t.api('POST', '/auth/logout', { auth: t.owner, body: {}, headers: { Origin: 'https://evil.example' } });
    expect(logoutForeign.status).toBe(403);
    const same = await t.api('POST', '/teams', { auth: t.owner, body: { name: 'csrf-ok' }, headers: { Origin: new URL(t.url).origin } });
    expect(same.status).toBe(201);
    const teams = await t.api('GET', '/teams', { auth: t.owner });
    expect(teams.body.data.map((x: { name: string }) => x.name)).not.toContain('csrf');
  });

  it('refuses a cookie write without Content-Type (a no-cors fetch) unless it comes from {app_url}', async () => {
    const user = await t.createUser({ teamId: t.teamId, role: 'owner' });
    const hook = await t.api('POST', '/webhooks', { auth: t.apiKey, body: { projectId: t.projectId, url: 'http://127.0.0.1:9/hook', events: ['run.failed'] } });
    const bare = (path: string, method: string, headers: Record<string, string>) => fetch(`${t.url}${path}`, { method, headers: { Cookie: user.cookie, ...headers } });
    for (const headers of [{ Origin: 'http://localhost:1' }, { Referer: 'http://localhost:1/x' }, {}] as Record<string, string>[]) {
      expect((await bare(`/api/v1/webhooks/${hook.body.id}/test`, 'POST', headers)).status).toBe(403);
      expect((await bare('/auth/logout', 'POST', headers)).status).toBe(403);
    }
    expect((await t.api('GET', `/webhooks/${hook.body.id}/deliveries`, { auth: t.apiKey })).body.data).toEqual([]);
    expect((await t.api('GET', '/auth/me', { auth: user })).status).toBe(200);
    // From the dashboard's own pages (Origin {app_url}) the same request is fine.
    expect((await bare(`/api/v1/webhooks/${hook.body.id}/test`, 'POST', { Origin: new URL(t.url).origin })).status).toBe(201);
  });

  it('refuses login CSRF: no cookie is set for a login that is not JSON or comes from elsewhere', async () => {
    // Bytes: fetch sends them without any Content-Type, as a no-cors fetch of a Blob does.
    const body = Buffer.from(JSON.stringify({ email: t.owner.email, password: t.owner.password }));
    for (const headers of [{}, { 'Content-Type': 'text/plain' }, { Origin: 'http://localhost:1' }, { 'Content-Type': 'application/json', Origin: 'http://localhost:1' }] as Record<string, string>[]) {
      const res = await fetch(`${t.url}/auth/login`, { method: 'POST', headers, body });
      expect(res.status, JSON.stringify(headers)).toBe(403);
      expect(res.headers.get('set-cookie')).toBeNull();
    }
    // API clients send JSON and no Origin: they keep working.
    const ok = await fetch(`${t.url}/auth/login`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body });
    expect(ok.status).toBe(200);
    expect(ok.headers.get('set-cookie')).toMatch(/^testreport_session=/);
  });
});
