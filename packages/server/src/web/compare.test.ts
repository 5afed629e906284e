import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../testing/harness.js';
import { createRun, postTests, testBody } from '../testing/results.js';

/* The dashboard's compare pages: picking a run of any branch, and the comparison of two runs. */
let t: TestServer;
let main: string;
let feature: string;

const get = async (path: string, cookie = t.owner.cookie) => {
  const res = await t.server.app.request(path, { headers: { Cookie: cookie }, redirect: 'manual' });
  return { status: res.status, html: await res.text() };
};

beforeAll(async () => {
  t = await startTestServer();
  main = (await createRun(t, { branch: 'main', commitSha: 'aaaaaaa1111' })).id;
  await postTests(t, [
    testBody(main, t.projectId, { title: 'pays', fullTitle: 'shop > pays', status: 'passed', duration: 1000 }),
    testBody(main, t.projectId, { title: 'leaves', fullTitle: 'shop > leaves', status: 'passed' }),
  ]);
  feature = (await createRun(t, { branch: 'feature/pay', commitSha: 'bbbbbbb2222' })).id;
  await postTests(t, [testBody(feature, t.projectId, { title: 'pays', fullTitle: 'shop > pays', status: 'failed', duration: 3000, error: { message: 'Error: card declined' } })]);
}, 60_000);
afterAll(() => t?.close());

describe('compare pages', () => {
  it('the run page links to "Compare with…", which lists runs of every branch, filterable by branch', async () => {
    expect((await get(`/runs/${feature}`)).html).toContain(`href="/runs/${feature}/compare"`);
    const pick = await get(`/runs/${feature}/compare`);
    expect(pick.status).toBe(200);
    expect(pick.html).toContain(`href="/runs/${feature}/compare?base=${main}"`);
    expect(pick.html).toContain('main @ aaaaaaa');
    const onlyFeature = await get(`/runs/${feature}/compare?branch=feature%2Fpay`);
    expect(onlyFeature.html).not.toContain(`?base=${main}`);
  });

  it('shows both runs and every list with statuses, durations and errors', async () => {
    const { status, html } = await get(`/runs/${feature}/compare?base=${main}`);
    expect(status).toBe(200);
    expect(html).toContain('feature/pay @ bbbbbbb');
    expect(html).toMatch(/<h2 id="newFailures">New failures \(1\)<\/h2>/);
    expect(html).toMatch(/<h2 id="removed">Removed \(1\)<\/h2>/);
    expect(html).toMatch(/<h2 id="slower">Slower \(1\)<\/h2>/);
    expect(html).toContain('Error: card declined');
    expect(html).toContain('shop &gt; leaves');
    expect(html).toContain(`href="/runs/${main}/compare?base=${feature}"`);
  });

  it('a viewer can compare; an unknown base or a run of another project is a 404 page', async () => {
    const viewer = await t.createUser({ teamId: t.teamId, role: 'viewer' });
    expect((await get(`/runs/${feature}/compare?base=${main}`, viewer.cookie)).status).toBe(200);
    expect((await get(`/runs/${feature}/compare?base=nope`)).status).toBe(404);
    const other = await t.createOtherTenant();
    expect((await get(`/runs/${feature}/compare?base=${main}`, other.owner.cookie)).status).toBe(404);
  });
});
