import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../testing/harness.js';
import { createRun, postTests, testBody } from '../testing/results.js';
import { fingerprintOf } from '../errorGroups/fingerprint.js';

/* The Errors pages and the run page's "new error" / "seen since" labels. */
let t: TestServer;
let clock = new Date('2026-11-20T09:00:00.000Z');
let first: string;
let second: string;
const MESSAGE = 'Error: connect ECONNREFUSED 127.0.0.1:5432';
const FP = fingerprintOf(MESSAGE, 'tests/db.spec.ts')!;

const get = async (path: string, cookie = t.owner.cookie) => {
  const res = await t.server.app.request(path, { headers: { Cookie: cookie }, redirect: 'manual' });
  return { status: res.status, html: await res.text() };
};

beforeAll(async () => {
  t = await startTestServer({ now: () => clock });
  first = (await createRun(t, { branch: 'main', commitSha: 'c0ffee12345' })).id;
  await postTests(t, [testBody(first, t.projectId, { title: 'reads', fullTitle: 'db > reads', filePath: 'tests/db.spec.ts', status: 'failed', error: { message: MESSAGE } })]);
  clock = new Date('2026-11-22T09:00:00.000Z');
  second = (await createRun(t, { branch: 'main', commitSha: 'beef0000' })).id;
  await postTests(t, [
    testBody(second, t.projectId, { title: 'reads', fullTitle: 'db > reads', filePath: 'tests/db.spec.ts', status: 'failed', error: { message: MESSAGE.replace('5432', '5433') } }),
    testBody(second, t.projectId, { title: 'writes', fullTitle: 'db > writes', filePath: 'tests/write.spec.ts', status: 'failed', error: { message: 'Error: disk full' } }),
  ]);
}, 60_000);
afterAll(() => t?.close());

describe('Errors pages', () => {
  it('list each group with a sparkline, counts and first and last seen, linked to its page', async () => {
    const { status, html } = await get(`/projects/${t.projectId}/errors`);
    expect(status).toBe(200);
    expect(html).toContain(`href="/projects/${t.projectId}/errors"`); // the header link
    expect(html).toContain(`href="/projects/${t.projectId}/errors/${FP}"`);
    expect(html).toContain('Error: connect ECONNREFUSED 127.0.0.1:5433');
    expect(html).toContain('Error: disk full');
    expect(html).toContain('<title>2026-11-20: 1</title>');
    expect(html).toContain('<title>2026-11-22: 1</title>');
    expect(html).toContain('main @ c0ffee1');
    const filtered = await get(`/projects/${t.projectId}/errors?q=disk`);
    expect(filtered.html).not.toContain('ECONNREFUSED');
  });

  it('window the list in whole UTC days, today included, as the daily aggregates count', async () => {
    const saved = clock;
    clock = new Date('2026-11-27T08:00:00.000Z');
    try {
      // The last 7 days are 21–27 November: the failure of 20 November at 09:00 is out, though it
      // is less than 7 × 24 hours old.
      const { html } = await get(`/projects/${t.projectId}/errors?days=7`);
      expect(html).toContain('Error: connect ECONNREFUSED 127.0.0.1:5433');
      expect(html).toContain('main @ beef000');
      expect(html).not.toContain('main @ c0ffee1');
    } finally {
      clock = saved;
    }
  });

  it('show one group with its first occurrence and the tests it hits', async () => {
    const { status, html } = await get(`/projects/${t.projectId}/errors/${FP}`);
    expect(status).toBe(200);
    expect(html).toContain(`href="/runs/${first}"`);
    expect(html).toContain('<code>c0ffee1</code>');
    expect(html).toContain('2 in 2 runs, 1 test');
    expect(html).toContain('db &gt; reads');
    expect((await get(`/projects/${t.projectId}/errors/0000000000000000`)).status).toBe(404);
  });

  it('label the run page groups: new error, or seen since the first run with its commit', async () => {
    const firstPage = (await get(`/runs/${first}`)).html;
    expect(firstPage).toContain('new error');
    const secondPage = (await get(`/runs/${second}`)).html;
    expect(secondPage).toMatch(/seen since 2026-11-20 in 2 runs.*first on <code>c0ffee1<\/code>/s);
    // The link to where it was first seen is in the group, not in its <summary> (a control: no link inside, axe's nested-interactive).
    expect(secondPage).toContain(`First seen in <a href="/runs/${first}">the run of 2026-11-20</a>`);
    expect([...secondPage.matchAll(/<summary>(.*?)<\/summary>/gs)].filter((m) => m[1].includes('<a '))).toEqual([]);
    expect(secondPage).toContain('new error'); // disk full
  });

  it('are open to viewers and closed to other teams', async () => {
    const viewer = await t.createUser({ teamId: t.teamId, role: 'viewer' });
    expect((await get(`/projects/${t.projectId}/errors`, viewer.cookie)).status).toBe(200);
    expect((await get(`/projects/${t.projectId}/errors/${FP}`, viewer.cookie)).status).toBe(200);
    const other = await t.createOtherTenant();
    expect((await get(`/projects/${t.projectId}/errors`, other.owner.cookie)).status).toBe(404);
    expect((await get(`/projects/${t.projectId}/errors/${FP}`, other.owner.cookie)).status).toBe(404);
  });
});
