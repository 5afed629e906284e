import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../testing/harness.js';
import { createRun, postTests, testBody } from '../testing/results.js';
import { normaliseError } from '../runs/comparison.js';

let t: TestServer;
let runA: string;
let runB: string;
let failingTestId: string;

/** A GET or form POST through the app, as the browser would send it. */
async function page(path: string, opts: { cookie?: string; form?: Record<string, string>; origin?: string | null } = {}) {
  const headers: Record<string, string> = {};
  if (opts.cookie) headers.Cookie = opts.cookie;
  let body: string | undefined;
  if (opts.form) {
    headers['Content-Type'] = 'application/x-www-form-urlencoded';
    body = new URLSearchParams(opts.form).toString();
    if (opts.origin !== null) headers.Origin = opts.origin ?? t.url;
  }
  const res = await t.server.app.request(path, { method: opts.form ? 'POST' : 'GET', headers, body, redirect: 'manual' });
  return { status: res.status, html: await res.text(), headers: res.headers };
}

beforeAll(async () => {
  t = await startTestServer();
  // Two finished runs on main: "checkout" breaks in the second, "login" is fixed in it.
  const first = await createRun(t, { branch: 'main', runTitle: 'nightly one', tags: ['nightly'], commitSha: 'aaaaaaa1111', commitMessage: 'first commit' });
  runA = first.id;
  await postTests(t, [
    testBody(runA, t.projectId, { title: 'logs in', fullTitle: 'auth > logs in', filePath: 'auth.spec.ts', status: 'failed', error: { message: 'Timed out 5000ms waiting for locator' } }),
    testBody(runA, t.projectId, { title: 'checks out', fullTitle: 'shop > checks out', filePath: 'shop.spec.ts', status: 'passed' }),
  ]);
  await t.api('PATCH', `/runs/${runA}`, { auth: t.apiKey, body: { status: 'failed' } });
  const second = await createRun(t, { branch: 'main', runTitle: 'nightly two', tags: ['release'], commitSha: 'bbbbbbb2222', commitMessage: 'second commit' });
  runB = second.id;
  const stored = await postTests(t, [
    testBody(runB, t.projectId, { title: 'logs in', fullTitle: 'auth > logs in', filePath: 'auth.spec.ts', status: 'passed' }),
    testBody(runB, t.projectId, { title: 'checks out', fullTitle: 'shop > checks out', filePath: 'shop.spec.ts', status: 'failed', error: { message: 'expect(received).toBe(expected)\n\nExpected: 3\nReceived: 2', expected: '3', actual: '2' } }),
    testBody(runB, t.projectId, { title: 'pays', fullTitle: 'shop > pays', filePath: 'shop.spec.ts', status: 'failed', error: { message: 'expect(received).toBe(expected)\n\nExpected: 10\nReceived: 9' } }),
    testBody(runB, t.projectId, { title: 'searches', fullTitle: 'shop > searches', filePath: 'shop.spec.ts', status: 'flaky', retries: 1 }),
  ]);
  failingTestId = stored[1].id;
  await t.api('PATCH', `/runs/${runB}`, { auth: t.apiKey, body: { status: 'failed' } });
  await createRun(t, { branch: 'feature/x', runTitle: 'still running' });
}, 60_000);
afterAll(() => t?.close());

describe('signing in', () => {
  it('sends a signed-out visitor of a deep link to sign-in and back to that link', async () => {
    const res = await page(`/runs/${runB}?status=failed`);
    expect(res.status).toBe(302);
    const location = res.headers.get('location')!;
    expect(location).toBe(`/?next=${encodeURIComponent(`/runs/${runB}?status=failed`)}`);

    const form = await page(location);
    expect(form.status).toBe(200);
    expect(form.html).toContain('>Email<');
    expect(form.html).toContain('Password');
    expect(form.html).toContain('Sign in</button>');
    expect(form.html).toContain('href="/signup"');
    expect(form.html).toContain('href="/forgot-password"');
    expect(form.html).toContain(`value="/runs/${runB}?status=failed"`);

    const signIn = await page('/signin', { form: { email: t.owner.email, password: t.owner.password, next: `/runs/${runB}?status=failed` } });
    expect(signIn.status).toBe(303);
    expect(signIn.headers.get('location')).toBe(`/runs/${runB}?status=failed`);
    const cookie = signIn.headers.get('set-cookie')!.split(';')[0];
    expect(cookie).toMatch(/^testreport_session=/);
    expect((await page(`/runs/${runB}`, { cookie })).status).toBe(200);
  });

  it('refuses a wrong password with the form again, and never redirects off-site', async () => {
    const wrong = await page('/signin', { form: { email: t.owner.email, password: 'not the password', next: '/' } });
    expect(wrong.status).toBe(401);
    expect(wrong.html).toContain('role="alert"');
    const offsite = await page('/signin', { form: { email: t.owner.email, password: t.owner.password, next: '//evil.example/x' } });
    expect(offsite.headers.get('location')).toBe('/');
  });

  it('refuses a form post from another origin or without any origin', async () => {
    expect((await page('/signin', { form: { email: t.owner.email, password: t.owner.password }, origin: 'http://evil.example' })).status).toBe(403);
    expect((await page('/signin', { form: { email: t.owner.email, password: t.owner.password }, origin: null })).status).toBe(403);
  });

  it('refuses a forged post that has no Content-Type (fetch with mode no-cors) from another origin or from nowhere', async () => {
    const user = await t.createUser({ teamId: t.teamId, role: 'viewer' });
    for (const headers of [{ Origin: 'http://localhost:1' }, { Referer: 'http://localhost:1/attack' }, {}] as Record<string, string>[]) {
      const res = await t.server.app.request('/signout', { method: 'POST', headers: { Cookie: user.cookie, ...headers }, redirect: 'manual' });
      expect(res.status).toBe(403);
    }
    // Still signed in: the sign-out never ran.
    expect((await page(`/runs/${runB}`, { cookie: user.cookie })).status).toBe(200);
  });

  it('never sends a signed-in user off-site or into a 500 with ?next=', async () => {
    for (const next of ['/\t/evil.example', '/\t\\evil.example', '//evil.example', '/\\evil.example', '/\n/x', '/\r\nSet-Cookie: a=b']) {
      const res = await page(`/?next=${encodeURIComponent(next)}`, { cookie: t.owner.cookie });
      expect(res.status, next).toBe(302);
      expect(res.headers.get('location'), next).toBe('/');
    }
    const encoded = await page(`/?next=${encodeURIComponent('/runs/x?q=€')}`, { cookie: t.owner.cookie });
    expect(encoded.headers.get('location')).toBe('/runs/x?q=%E2%82%AC');
  });

  it('signs in with a line break in next and lands on / instead of a 500', async () => {
    const res = await page('/signin', { form: { email: t.owner.email, password: t.owner.password, next: '/\n/x' } });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe('/');
    const tab = await page('/signin', { form: { email: t.owner.email, password: t.owner.password, next: '/\t/evil.example' } });
    expect(tab.headers.get('location')).toBe('/');
  });

  it('signs out: the session no longer opens pages', async () => {
    const user = await t.createUser({ teamId: t.teamId, role: 'viewer' });
    expect((await page('/signout', { cookie: user.cookie, form: {} })).status).toBe(303);
    expect((await page(`/runs/${runB}`, { cookie: user.cookie })).status).toBe(302);
  });

  it('sends a signed-in user from / to the runs of a project', async () => {
    const res = await page('/', { cookie: t.owner.cookie });
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe(`/projects/${t.projectId}/runs`);
    const withNext = await page(`/?next=${encodeURIComponent(`/runs/${runA}`)}`, { cookie: t.owner.cookie });
    expect(withNext.headers.get('location')).toBe(`/runs/${runA}`);
  });
});

describe('runs page', () => {
  it('lists runs with branch, commit, counts and pass rate, under a strict CSP', async () => {
    const res = await page(`/projects/${t.projectId}/runs`, { cookie: t.owner.cookie });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(res.headers.get('content-security-policy')).not.toContain('unsafe-inline');
    expect(res.html).toContain('nightly one');
    expect(res.html).toContain('nightly two');
    expect(res.html).toContain('bbbbbbb');
    expect(res.html).toContain('second commit');
    expect(res.html).toContain('25%'); // 1 passed of 4
    expect(res.html).toContain('data-running'); // the running run refreshes live
    expect(res.html).toContain('>Runs<');
    expect(res.html).toContain('>Flaky tests<');
    expect(res.html).toContain('>Settings<');
    expect(res.html).toContain('<svg class="chart"');
  });

  it('filters by branch, status, tag and text, keeping the filters in the URL', async () => {
    const base = `/projects/${t.projectId}/runs`;
    const byTag = await page(`${base}?tag=release`, { cookie: t.owner.cookie });
    expect(byTag.html).toContain('nightly two');
    expect(byTag.html).not.toContain('nightly one');
    const byText = await page(`${base}?q=FIRST%20commit`, { cookie: t.owner.cookie });
    expect(byText.html).toContain('nightly one');
    expect(byText.html).not.toContain('nightly two');
    const byBranch = await page(`${base}?branch=feature%2Fx`, { cookie: t.owner.cookie });
    expect(byBranch.html).toContain('still running');
    expect(byBranch.html).not.toContain('nightly one');
    const byStatus = await page(`${base}?status=running`, { cookie: t.owner.cookie });
    expect(byStatus.html).toContain('still running');
    expect(byStatus.html).not.toContain('nightly two');
  });

  it('answers an HTML 404 for a project out of reach', async () => {
    const other = await t.createOtherTenant();
    for (const path of [`/projects/${other.projectId}/runs`, `/projects/${other.projectId}/flaky`, `/projects/${other.projectId}/settings`]) {
      const res = await page(path, { cookie: t.owner.cookie });
      expect(res.status, path).toBe(404);
      expect(res.headers.get('content-type')).toContain('text/html');
    }
  });
});

describe('run page', () => {
  it('groups failures by normalised error and names new failures and fixed tests against the previous run on the branch', async () => {
    const res = await page(`/runs/${runB}`, { cookie: t.owner.cookie });
    expect(res.status).toBe(200);
    expect(res.html).toContain('Failures by error (2)');
    // Both "toBe" failures differ only in numbers: one group of two.
    expect(res.html).toMatch(/<span class="badge s-failed">2<\/span> <code>expect\(received\)\.toBe\(expected\)<\/code>/);
    expect(res.html).toContain('New failures (2)');
    expect(res.html).toContain('Fixed (1)');
    const fixed = res.html.slice(res.html.indexOf('Fixed (1)'));
    expect(fixed).toContain('auth &gt; logs in');
    expect(res.html).toContain(`href="/runs/${runA}"`);
    expect(res.html).toContain('Flaky in this run (1)');
  });

  it('shows the suite as files and tests, filtered by status and search', async () => {
    const failed = await page(`/runs/${runB}?status=failed`, { cookie: t.owner.cookie });
    const tree = failed.html.slice(failed.html.indexOf('class="tree"'));
    expect(tree).toContain('shop.spec.ts');
    expect(tree).toContain('checks out');
    expect(tree).not.toContain('searches');
    const searched = await page(`/runs/${runB}?q=pays`, { cookie: t.owner.cookie });
    const tree2 = searched.html.slice(searched.html.indexOf('class="tree"'));
    expect(tree2).toContain('pays');
    expect(tree2).not.toContain('checks out');
  });

  it('answers an HTML 404 for an unknown run and JSON for an unknown API path', async () => {
    const res = await page('/runs/00000000-0000-7000-8000-000000000000', { cookie: t.owner.cookie });
    expect(res.status).toBe(404);
    expect(res.html).toContain('Page not found');
    const nowhere = await page('/no/such/page', { cookie: t.owner.cookie });
    expect(nowhere.status).toBe(404);
    expect(nowhere.headers.get('content-type')).toContain('text/html');
    const api = await page('/api/v1/no-such-thing');
    expect(api.status).toBe(404);
    expect(JSON.parse(api.html).error.code).toBe('NOT_FOUND');
  });
});

describe('test page', () => {
  it('shows the error with expected and actual, and the history strip linking each result', async () => {
    const res = await page(`/tests/${failingTestId}`, { cookie: t.owner.cookie });
    expect(res.status).toBe(200);
    expect(res.html).toContain('Expected: 3');
    expect(res.html).toContain('<dt>Expected</dt>');
    const strip = res.html.slice(res.html.indexOf('class="strip"'));
    expect(strip).toMatch(/href="\/tests\/[^"]+" class="s-passed"/);
    expect(strip).toContain(`href="/tests/${failingTestId}" class="s-failed current"`);
    expect(res.html).toContain('not quarantined');
  });
});

describe('flaky page and roles', () => {
  it('lets a member quarantine and release, and shows a viewer no buttons', async () => {
    const member = await t.createUser({ teamId: t.teamId, role: 'member' });
    const viewer = await t.createUser({ teamId: t.teamId, role: 'viewer' });
    const path = `/projects/${t.projectId}/flaky`;
    const asMember = await page(path, { cookie: member.cookie });
    expect(asMember.html).toContain('searches');
    expect(asMember.html).toContain('>Quarantine</button>');
    const asViewer = await page(path, { cookie: viewer.cookie });
    expect(asViewer.html).toContain('searches');
    expect(asViewer.html).not.toContain('>Quarantine</button>');

    const testId = /name="testId" value="([^"]+)"/.exec(asMember.html)![1];
    const post = await page(`${path}/quarantine`, { cookie: member.cookie, form: { testId, quarantined: 'true', back: path } });
    expect(post.status).toBe(303);
    expect((await page(path, { cookie: member.cookie })).html).toContain('>Release</button>');
    // The service still decides: a viewer's post is refused.
    expect((await page(`${path}/quarantine`, { cookie: viewer.cookie, form: { testId, quarantined: 'false', back: path } })).status).toBe(403);
    // The test page shows who quarantined it (docs/decisions.md §13).
    const testPage = await page(`/tests/${testId}`, { cookie: viewer.cookie });
    expect(testPage.html).toContain('Quarantine history');
    expect(testPage.html).toMatch(new RegExp(`<b>quarantined</b>.*by ${member.email.split('@')[0]} <span class="muted">\\(user\\)</span>: quarantined by hand`));
  });

  it('shows owners from CODEOWNERS and filters the flaky page by owner', async () => {
    const run = await createRun(t, { branch: 'main', codeowners: '* @acme/all\nbilling.spec.ts @acme/billing\n' });
    const [billed] = await postTests(t, [testBody(run.id, t.projectId, { title: 'bills', fullTitle: 'billing > bills', filePath: 'billing.spec.ts', status: 'flaky', retries: 1 })]);
    await t.api('PATCH', `/runs/${run.id}`, { auth: t.apiKey, body: { status: 'passed' } });
    const path = `/projects/${t.projectId}/flaky`;
    const mine = await page(`${path}?owner=%40acme%2Fbilling`, { cookie: t.owner.cookie });
    expect(mine.html).toContain('bills');
    expect(mine.html).toContain('@acme/billing');
    expect(mine.html).not.toContain('searches');
    expect(mine.html).toContain('value="@acme/billing"');
    expect((await page(`${path}?owner=%40nobody`, { cookie: t.owner.cookie })).html).toContain('No flaky tests owned by @nobody');
    expect((await page(`/tests/${billed.id}`, { cookie: t.owner.cookie })).html).toMatch(/Owners: <span class="owners"><span class="badge mono">@acme\/billing<\/span>/);
    // The run page names the owners of its flaky (and failing) tests.
    expect((await page(`/runs/${run.id}`, { cookie: t.owner.cookie })).html).toMatch(/billing\.spec\.ts<\/span> <span class="owners"><span class="badge mono">@acme\/billing<\/span>/);
  });
});

describe('trace viewer', () => {
  it('is served from this server with its own CSP allowing only its inline script', async () => {
    const res = await page('/trace/index.html');
    expect(res.status).toBe(200);
    expect(res.html).toContain('Playwright Trace Viewer');
    const csp = res.headers.get('content-security-policy')!;
    expect(csp).toMatch(/script-src 'self' 'sha256-[^']+'/);
    expect(csp).toContain("worker-src 'self'");
    expect((await page('/trace/sw.bundle.js')).status).toBe(200);
    expect((await page('/trace/../package.json')).status).toBe(404);
  });
});

describe('mailed-link pages', () => {
  it.each([
    ['/verify-email', 'verify', "post('/auth/verify-email'"],
    ['/reset-password', 'reset', "post('/auth/reset-password'"],
    ['/accept-invitation', 'accept', "post('/api/v1/invitations/accept'"],
  ])('%s is a dashboard page whose script posts the token, with no Referer leaving it', async (path, flow, posts) => {
    const res = await page(`${path}?token=abc`);
    expect(res.status).toBe(200);
    expect(res.html).toContain(`data-flow="${flow}"`);
    expect(res.headers.get('referrer-policy')).toBe('no-referrer');
    expect(res.headers.get('content-security-policy')).toContain("script-src 'self'");
    const script = /<script src="(\/assets\/account\.[0-9a-f]+\.js)"/.exec(res.html)![1];
    expect(await (await page(script)).html).toContain(posts);
  });
});

describe('normaliseError', () => {
  it('groups messages that differ only in numbers, ids and quoted values', () => {
    expect(normaliseError('Timed out 5000ms waiting for "#a"')).toBe(normaliseError('\u001b[31mTimed out 300ms waiting for "#b"\u001b[39m\nmore'));
    expect(normaliseError('Error: one')).not.toBe(normaliseError('Error: two'));
    expect(normaliseError(null)).toBe('(no error message)');
  });
});
