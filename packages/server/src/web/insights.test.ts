import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../testing/harness.js';
import { createRun, postTests, testBody } from '../testing/results.js';

/*
 * The Insights page over HTTP, on a history whose truth is known: one run a day on main for 14 days
 * up to today (the 7-day window and the 7 days before it), one run on a feature branch today.
 * - "checkout > pays" takes 1000 ms before the window and 1500 ms inside it: a regression of +50%;
 * - "coupon > applies" fails every time; "login > sso" is flaky (passed on a retry) every other day;
 * - "cart > adds" passes in 100 ms.
 */
let t: TestServer;
const TODAY = '2026-11-26';
let clock = new Date(`${TODAY}T12:00:00.000Z`);
const DAY = 86_400_000;

const get = async (path: string, cookie = t.owner.cookie) => {
  const res = await t.server.app.request(path, { headers: { Cookie: cookie }, redirect: 'manual' });
  return { status: res.status, html: await res.text() };
};

async function day(back: number, branch = 'main') {
  clock = new Date(Date.parse(`${TODAY}T10:00:00.000Z`) - back * DAY);
  const run = (await createRun(t, { branch, commitSha: `c${back}` })).id;
  const inWindow = back < 7;
  await postTests(t, [
    testBody(run, t.projectId, { title: 'pays', fullTitle: 'checkout > pays', filePath: 'tests/checkout.spec.ts', duration: inWindow ? 1500 : 1000 }),
    testBody(run, t.projectId, { title: 'applies', fullTitle: 'coupon > applies', filePath: 'tests/coupon.spec.ts', status: 'failed', duration: 200, error: { message: 'Error: coupon expired' } }),
    testBody(run, t.projectId, { title: 'sso', fullTitle: 'login > sso', filePath: 'tests/login.spec.ts', ...(back % 2 === 0 ? { status: 'flaky', retries: 1 } : {}), duration: 300 }),
    testBody(run, t.projectId, { title: 'adds', fullTitle: 'cart > adds', filePath: 'tests/cart.spec.ts', duration: 100 }),
  ]);
  clock = new Date(clock.getTime() + 60_000 + back * 1000);
  const done = await t.api('PATCH', `/runs/${run}`, { auth: t.apiKey, body: { status: 'failed', duration: 60_000 + back * 1000 } });
  expect(done.status).toBe(200);
}

beforeAll(async () => {
  t = await startTestServer({ now: () => clock });
  for (let back = 13; back >= 0; back--) await day(back);
  await day(0, 'feature/x');
  clock = new Date(`${TODAY}T12:00:00.000Z`);
}, 120_000);
afterAll(() => t?.close());

describe('Insights page', () => {
  it('is linked from the project navigation and opens on 30 days of every branch', async () => {
    const runs = await get(`/projects/${t.projectId}/runs`);
    expect(runs.html).toContain(`href="/projects/${t.projectId}/insights"`);
    const { status, html } = await get(`/projects/${t.projectId}/insights`);
    expect(status).toBe(200);
    expect(html).toContain('<option value="30" selected="">the last 30 days</option>');
    expect(html).toContain('2026-10-28 to 2026-11-26 (UTC), all branches.');
    expect(html).toContain('<option value="feature/x">feature/x</option>');
  });

  it('draws the days of the window and lists the regression, slowest, failing and flaky tests with links', async () => {
    const { html } = await get(`/projects/${t.projectId}/insights?days=7&branch=main`);
    expect(html).toContain('2026-11-20 to 2026-11-26 (UTC), branch main.');
    expect(html).toMatch(/Runs<\/span><b>7<\/b>/);
    expect(html.match(/<circle class="rate-point"/g)).toHaveLength(7);
    expect(html.match(/<rect class="dur-bar"/g)).toHaveLength(7);
    expect(html).toContain('>11-20</text>');
    expect(html).toContain('>11-26</text>');
    const section = (id: string) => html.slice(html.indexOf(`<h2 id="${id}">`), html.indexOf('</section>', html.indexOf(`<h2 id="${id}">`)));
    expect(section('regressions')).toContain('checkout &gt; pays');
    expect(section('regressions')).toContain('1.0 s → 1.5 s');
    expect(section('regressions')).toContain('+50%');
    expect(section('regressions')).not.toContain('cart &gt; adds');
    expect(section('slowest')).toMatch(/checkout &gt; pays[\s\S]*login &gt; sso[\s\S]*coupon &gt; applies[\s\S]*cart &gt; adds/);
    expect(section('failing')).toContain('coupon &gt; applies');
    expect(section('failing')).toContain('>100%</td>');
    expect(section('failing')).toContain('7 / 7');
    expect(section('failing')).not.toContain('login &gt; sso');
    expect(section('flakiest')).toContain('login &gt; sso');
    expect(section('flakiest')).toContain('4 / 7'); // days 0, 2, 4, 6 back
    const links = [...section('slowest').matchAll(/href="\/tests\/([^"]+)"/g)].map((m) => m[1]);
    expect(links).toHaveLength(4);
    for (const id of links) expect((await get(`/tests/${id}`)).status).toBe(200);
  });

  it('says what to do when the window has no runs, and why a list is empty', async () => {
    const { status, html } = await get(`/projects/${t.projectId}/insights?days=7&branch=nope`);
    expect(status).toBe(200);
    expect(html).toContain('No runs on nope in the last 7 days. Upload results with the Playwright reporter or <code>reporter upload</code>');
    expect(html).not.toContain('<svg class="chart"');
    expect(html).toContain('No test failed in these 7 days.');
    expect(html).toContain('<option value="nope" selected="">nope</option>');
    // An owner no test has: the lists are empty and say so; the runs are still counted.
    const owned = await get(`/projects/${t.projectId}/insights?days=7&owner=${encodeURIComponent('@acme/nobody')}`);
    expect(owned.html).toContain('No test owned by @acme/nobody failed in these 7 days.');
    expect(owned.html).toContain('value="@acme/nobody"');
    expect(owned.html).toMatch(/Runs<\/span><b>8<\/b>/);
  });

  it('is open to viewers and closed to other teams', async () => {
    const viewer = await t.createUser({ teamId: t.teamId, role: 'viewer' });
    const seen = await get(`/projects/${t.projectId}/insights?days=7`, viewer.cookie);
    expect(seen.status).toBe(200);
    expect(seen.html).toContain('coupon &gt; applies');
    const other = await t.createOtherTenant();
    const refused = await get(`/projects/${t.projectId}/insights`, other.owner.cookie);
    expect(refused.status).toBe(404);
    expect(refused.html).not.toContain('coupon');
  });
});
