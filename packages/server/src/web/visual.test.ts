import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../testing/harness.js';
import { png, upload } from '../testing/artifacts.js';
import { createRun, postTests, testBody } from '../testing/results.js';

// The visual review page of a run (issue 28): every snapshot grouped by test file, Accept, Accept all
// in this file and Undo for members, nothing to press for viewers, and the run page's link to it.
let t: TestServer;
let runId: string;
const ids: Record<string, string> = {};

async function page(path: string, opts: { cookie?: string; form?: Record<string, string> } = {}) {
  const headers: Record<string, string> = {};
  if (opts.cookie) headers.Cookie = opts.cookie;
  let body: string | undefined;
  if (opts.form) {
    headers['Content-Type'] = 'application/x-www-form-urlencoded';
    headers.Origin = t.url;
    body = new URLSearchParams(opts.form).toString();
  }
  const res = await t.server.app.request(path, { method: opts.form ? 'POST' : 'GET', headers, body, redirect: 'manual' });
  return { status: res.status, html: await res.text(), headers: res.headers };
}

beforeAll(async () => {
  t = await startTestServer();
  runId = (await createRun(t, { branch: 'main' })).id;
  const made = await postTests(t, [
    testBody(runId, t.projectId, { title: 'header', fullTitle: 'home > header', filePath: 'tests/home.spec.ts', status: 'failed', duration: 1 }),
    testBody(runId, t.projectId, { title: 'footer', fullTitle: 'home > footer', filePath: 'tests/home.spec.ts', status: 'failed', duration: 1 }),
    testBody(runId, t.projectId, { title: 'cart', fullTitle: 'cart > cart', filePath: 'tests/cart.spec.ts', status: 'failed', duration: 1 }),
  ]);
  for (const [i, title] of ['header', 'footer', 'cart'].entries()) ids[title] = made[i]!.id;
  for (const title of ['header', 'footer', 'cart']) {
    for (const part of ['expected', 'actual', 'diff']) {
      const res = await upload(t, { auth: t.apiKey, fields: { type: 'screenshot', runId, projectId: t.projectId, testId: ids[title]!, retry: '0', snapshotPath: `snaps/${title}.png` }, fileName: `${title}-${part}.png`, content: png() });
      expect(res.status).toBe(201);
    }
  }
});
afterAll(() => t?.close());

describe('visual review page', () => {
  it('is linked from the run page and groups snapshots by file', async () => {
    const run = await page(`/runs/${runId}`, { cookie: t.owner.cookie });
    expect(run.html).toContain(`href="/runs/${runId}/visual">Review 3 screenshot changes</a>`);
    const visual = await page(`/runs/${runId}/visual`, { cookie: t.owner.cookie });
    expect(visual.status).toBe(200);
    const order = ['tests/cart.spec.ts', 'cart &gt; cart', 'tests/home.spec.ts', 'home &gt; footer', 'home &gt; header'].map((s) => visual.html.indexOf(s));
    expect(order.every((n, i) => n > 0 && (i === 0 || n > order[i - 1]!))).toBe(true);
    expect(visual.html).toContain('3 snapshots, 0 accepted');
    expect(visual.html).toContain('data-imgdiff="Diff|Actual|Expected|Side by side|Slider"');
  });

  it('lets a member accept, accept all in a file and undo; a viewer sees no buttons and is refused', async () => {
    const member = await t.createUser({ teamId: t.teamId, role: 'member' });
    const viewer = await t.createUser({ teamId: t.teamId, role: 'viewer' });
    const asViewer = await page(`/runs/${runId}/visual`, { cookie: viewer.cookie });
    expect(asViewer.html).not.toContain('>Accept</button>');
    expect(asViewer.html).not.toContain('Accept all in this file');
    expect((await page(`/runs/${runId}/visual/accept`, { cookie: viewer.cookie, form: { testId: ids.cart!, name: 'cart', back: '/' } })).status).toBe(403);

    const accept = await page(`/runs/${runId}/visual/accept`, { cookie: member.cookie, form: { testId: ids.cart!, name: 'cart', back: `/runs/${runId}/visual` } });
    expect(accept.status).toBe(303);
    let html = (await page(`/runs/${runId}/visual`, { cookie: member.cookie })).html;
    expect(html).toContain(`accepted by ${member.email.split('@')[0]}`);
    expect(html).toContain('1 accepted');

    expect((await page(`/runs/${runId}/visual/accept`, { cookie: member.cookie, form: { file: 'tests/home.spec.ts', back: `/runs/${runId}/visual` } })).status).toBe(303);
    html = (await page(`/runs/${runId}/visual`, { cookie: member.cookie })).html;
    expect(html).toContain('3 accepted');

    expect((await page(`/runs/${runId}/visual/undo`, { cookie: member.cookie, form: { testId: ids.header!, name: 'header', back: `/runs/${runId}/visual` } })).status).toBe(303);
    html = (await page(`/runs/${runId}/visual`, { cookie: member.cookie })).html;
    expect(html).toContain('2 accepted');
    expect(html).toContain('>Undo</button>');
    const baselines = await t.api('GET', `/runs/${runId}/baselines`, { auth: t.apiKey });
    expect(baselines.body.data.map((b: { snapshotPath: string }) => b.snapshotPath)).toEqual(['snaps/cart.png', 'snaps/footer.png']);
  });

  it('refuses a test of another run', async () => {
    const other = (await createRun(t, { branch: 'main' })).id;
    expect((await page(`/runs/${other}/visual/accept`, { cookie: t.owner.cookie, form: { testId: ids.cart!, name: 'cart', back: '/' } })).status).toBe(404);
  });
});
