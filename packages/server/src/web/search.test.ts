import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../testing/harness.js';
import { createRun, postTests, testBody } from '../testing/results.js';

/* The search box in the header and the search page it leads to. */
let t: TestServer;
let clock = new Date('2026-11-20T09:00:00.000Z');
const ids: string[] = [];

const get = async (path: string, cookie = t.owner.cookie) => {
  const res = await t.server.app.request(path, { headers: { Cookie: cookie }, redirect: 'manual' });
  return { status: res.status, html: await res.text() };
};

beforeAll(async () => {
  t = await startTestServer({ now: () => clock });
  const first = (await createRun(t, { branch: 'main', commitSha: 'c0ffee12345' })).id;
  ids.push(...(await postTests(t, [testBody(first, t.projectId, { title: 'reads', fullTitle: 'db > reads', status: 'failed', error: { message: 'Error: read ECONNRESET <img src=x onerror=alert(1)>' } })])).map((r) => r.id));
  clock = new Date('2026-11-22T09:00:00.000Z');
  const second = (await createRun(t, { branch: 'feature/x', commitSha: 'beef0000' })).id;
  ids.push(...(await postTests(t, [testBody(second, t.projectId, { title: 'writes', fullTitle: 'db > writes', stdout: 'retry after econnreset' })])).map((r) => r.id));
}, 60_000);
afterAll(() => t?.close());

describe('Search page', () => {
  it('is reached from a search box in the header of every project page', async () => {
    const { html } = await get(`/projects/${t.projectId}/runs`);
    expect(html).toMatch(new RegExp(`<form method="get" action="/projects/${t.projectId}/search" role="search"[^>]*>`));
    expect(html).toContain('<input id="header-search" type="search" name="q"');
  });

  it('lists matching results newest first with the match marked and everything else escaped', async () => {
    const { status, html } = await get(`/projects/${t.projectId}/search?q=ECONNRESET`);
    expect(status).toBe(200);
    const writes = html.indexOf(`href="/tests/${ids[1]}"`);
    const reads = html.indexOf(`href="/tests/${ids[0]}"`);
    expect(writes).toBeGreaterThan(0);
    expect(reads).toBeGreaterThan(writes);
    expect(html).toContain('<pre class="snippet">retry after <mark>econnreset</mark></pre>');
    expect(html).toContain('<pre class="snippet">Error: read <mark>ECONNRESET</mark> &lt;img src=x onerror=alert(1)&gt;</pre>');
    expect(html).not.toContain('<img src=x');
    expect(html).toContain('2 results');
  });

  it('narrows by field and branch, and asks for three characters', async () => {
    const errorsOnly = await get(`/projects/${t.projectId}/search?q=econnreset&in=errors`);
    expect(errorsOnly.html).toContain(`href="/tests/${ids[0]}"`);
    expect(errorsOnly.html).not.toContain(`href="/tests/${ids[1]}"`);
    const feature = await get(`/projects/${t.projectId}/search?q=econnreset&branch=feature%2Fx`);
    expect(feature.html).toContain(`href="/tests/${ids[1]}"`);
    expect(feature.html).not.toContain(`href="/tests/${ids[0]}"`);
    const short = await get(`/projects/${t.projectId}/search?q=ec`);
    expect(short.status).toBe(200);
    expect(short.html).toContain('Search for at least 3 characters.');
  });

  it('is open to viewers and closed to other teams', async () => {
    const viewer = await t.createUser({ teamId: t.teamId, role: 'viewer' });
    expect((await get(`/projects/${t.projectId}/search?q=econnreset`, viewer.cookie)).html).toContain(`href="/tests/${ids[0]}"`);
    const other = await t.createOtherTenant();
    const denied = await get(`/projects/${t.projectId}/search?q=econnreset`, other.owner.cookie);
    expect(denied.status).toBe(404);
    expect(denied.html).not.toContain('econnreset');
  });
});
