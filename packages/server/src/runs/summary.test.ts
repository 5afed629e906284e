import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../testing/harness.js';
import { createRun, postTests, testBody } from '../testing/results.js';

/*
 * GET /runs/:id/summary against a real server: a finished run on main, then a feature-branch run
 * with one of each kind — a new failure, a fixed test, one still failing, a flaky test and a
 * quarantined failure — and what the summary says about it.
 */
let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(async () => {
  await t?.close();
});

const ERROR = '\u001b[31mError: expect(received).toBe(expected)\u001b[39m\n\nExpected: 3\nReceived: 2\n    at tests/cart.spec.ts:9:5';
const result = (runId: string, name: string, status: string, over: Record<string, unknown> = {}) =>
  testBody(runId, t.projectId, { title: name, fullTitle: `cart > ${name}`, filePath: `tests/${name}.spec.ts`, status, ...(status === 'failed' ? { error: { message: ERROR } } : {}), ...over });

async function finishedRun(branch: string, outcomes: Record<string, string>, extra: Record<string, unknown> = {}) {
  const run = await createRun(t, { branch, ...extra });
  const ids = await postTests(t, Object.entries(outcomes).map(([name, status]) => result(run.id, name, status)));
  const failed = Object.values(outcomes).includes('failed');
  expect((await t.api('PATCH', `/runs/${run.id}`, { auth: t.apiKey, body: { status: failed ? 'failed' : 'passed' } })).status).toBe(200);
  return { runId: run.id, testIds: Object.fromEntries(Object.keys(outcomes).map((name, i) => [name, ids[i].id])) };
}

const titles = (list: { items: { fullTitle: string }[] }) => list.items.map((i) => i.fullTitle);

let base: Awaited<ReturnType<typeof finishedRun>>;
let feature: Awaited<ReturnType<typeof finishedRun>>;

beforeAll(async () => {
  base = await finishedRun('main', { newly: 'passed', fixed: 'failed', still: 'failed', flaky: 'passed', quarantined: 'passed' });
  feature = await finishedRun('feature/cart', { newly: 'failed', fixed: 'passed', still: 'failed', flaky: 'flaky', quarantined: 'failed' }, { ciBuildId: 'build-77', commitSha: 'abc123' });
  const q = await t.api('POST', '/flakiness', { auth: t.apiKey, body: { projectId: t.projectId, testId: feature.testIds.quarantined, isQuarantined: true } });
  expect(q.status).toBe(200);
});

describe('GET /runs/:id/summary', () => {
  it('compares with the last finished run on the project default branch (main) and lists every kind with links', async () => {
    const res = await t.api('GET', `/runs/${feature.runId}/summary`, { auth: t.apiKey });
    expect(res.status).toBe(200);
    const s = res.body;
    expect(s.run).toMatchObject({ id: feature.runId, branch: 'feature/cart', status: 'failed', totalTests: 5, passedTests: 1, failedTests: 3, flakyTests: 1, passRate: 20, ciBuildId: 'build-77', url: `${t.url}/runs/${feature.runId}` });
    expect(s.base).toEqual({ branch: 'main', run: { id: base.runId, status: 'failed', createdAt: expect.any(String), url: `${t.url}/runs/${base.runId}` } });
    expect(s.failed.total).toBe(3);
    expect(titles(s.failed)).toEqual(['cart > newly', 'cart > quarantined', 'cart > still']);
    expect(titles(s.newFailures)).toEqual(['cart > newly', 'cart > quarantined']);
    expect(s.newFailures.total).toBe(2);
    expect(titles(s.fixed)).toEqual(['cart > fixed']);
    expect(titles(s.flaky)).toEqual(['cart > flaky']);
    expect(titles(s.quarantinedFailures)).toEqual(['cart > quarantined']);
    const newly = s.failed.items[0];
    expect(newly).toEqual({
      testId: feature.testIds.newly, title: 'newly', fullTitle: 'cart > newly', filePath: 'tests/newly.spec.ts', status: 'failed',
      error: 'Error: expect(received).toBe(expected)', newError: true, errorFirstSeen: null, quarantined: false, owners: [], url: `${t.url}/tests/${feature.testIds.newly}`,
    });
    expect(s.failed.items[1].quarantined).toBe(true);
    expect(s.fixed.items[0].error).toBeNull();
  });

  it("counts a test's later result when a run stored it twice (repeat-each, a resent test), in the run and in its base", async () => {
    // Base on `dup`: a failed then passed (counts passed), b passed then failed (counts failed).
    const before = await createRun(t, { branch: 'dup' });
    await postTests(t, [result(before.id, 'a', 'failed'), result(before.id, 'b', 'passed')]);
    await postTests(t, [result(before.id, 'a', 'passed'), result(before.id, 'b', 'failed')]);
    expect((await t.api('PATCH', `/runs/${before.id}`, { auth: t.apiKey, body: { status: 'failed' } })).status).toBe(200);
    // Now: a failed; b failed then passed (fixed); c passed then failed (new).
    const now = await createRun(t, { branch: 'dup' });
    await postTests(t, [result(now.id, 'a', 'failed'), result(now.id, 'b', 'failed'), result(now.id, 'c', 'passed')]);
    await postTests(t, [result(now.id, 'b', 'passed'), result(now.id, 'c', 'failed')]);
    const s = (await t.api('GET', `/runs/${now.id}/summary?base=dup`, { auth: t.apiKey })).body;
    expect(s.base.run.id).toBe(before.id);
    expect(titles(s.failed)).toEqual(['cart > a', 'cart > c']);
    expect(titles(s.newFailures)).toEqual(['cart > a', 'cart > c']);
    expect(titles(s.fixed)).toEqual(['cart > b']);
  });

  it('takes another base branch, and with no finished run on it reports nothing as new', async () => {
    const res = await t.api('GET', `/runs/${feature.runId}/summary?base=release%2F1.0`, { auth: t.apiKey });
    expect(res.status).toBe(200);
    expect(res.body.base).toEqual({ branch: 'release/1.0', run: null });
    expect(res.body.newFailures).toEqual({ total: 0, items: [] });
    expect(res.body.fixed.total).toBe(0);
    expect(res.body.failed.total).toBe(3);
  });

  it('follows the project setting defaultBranch', async () => {
    const set = await t.api('PATCH', `/projects/${t.projectId}/settings`, { auth: t.owner, body: { defaultBranch: 'develop' } });
    expect(set.status).toBe(200);
    expect(set.body.defaultBranch).toBe('develop');
    const res = await t.api('GET', `/runs/${feature.runId}/summary`, { auth: t.apiKey });
    expect(res.body.base).toEqual({ branch: 'develop', run: null });
    expect((await t.api('PATCH', `/projects/${t.projectId}/settings`, { auth: t.owner, body: { defaultBranch: 'main' } })).status).toBe(200);
    const bad = await t.api('PATCH', `/projects/${t.projectId}/settings`, { auth: t.owner, body: { defaultBranch: '   ' } });
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.body.error.details)).toContain('defaultBranch');
  });

  it('cuts each list to `limit` and keeps its total', async () => {
    const res = await t.api('GET', `/runs/${feature.runId}/summary?limit=1`, { auth: t.apiKey });
    expect(res.body.failed.total).toBe(3);
    expect(titles(res.body.failed)).toEqual(['cart > newly']);
    expect(res.body.newFailures).toMatchObject({ total: 2 });
    expect(res.body.newFailures.items).toHaveLength(1);
    for (const bad of ['0', '1001', 'x']) {
      const r = await t.api('GET', `/runs/${feature.runId}/summary?limit=${bad}`, { auth: t.apiKey });
      expect(r.status, bad).toBe(400);
      expect(JSON.stringify(r.body.error.details)).toContain('limit');
    }
  });

  it("is 404 for another project's key and for an unknown run, and readable by a viewer", async () => {
    const other = await t.createOtherTenant();
    const hidden = await t.api('GET', `/runs/${feature.runId}/summary`, { auth: other.apiKey });
    expect(hidden.status).toBe(404);
    expect(hidden.body.error.code).toBe('NOT_FOUND');
    expect((await t.api('GET', `/runs/${feature.runId}/summary`, { auth: other.owner })).status).toBe(404);
    expect((await t.api('GET', '/runs/01a20000-0000-7000-8000-000000000000/summary', { auth: t.apiKey })).status).toBe(404);
    const viewer = await t.createUser({ teamId: t.teamId, role: 'viewer' });
    expect((await t.api('GET', `/runs/${feature.runId}/summary`, { auth: viewer })).status).toBe(200);
  });
});

describe('GET /runs?ciBuildId=', () => {
  it('finds the runs of one CI build, newest first', async () => {
    // The feature run above is build-77's run without a group; a second suite of the build reports as its own group.
    const later = await createRun(t, { branch: 'feature/cart', ciBuildId: 'build-77', group: 'api' });
    await createRun(t, { branch: 'feature/cart', ciBuildId: 'build-78' });
    const res = await t.api('GET', `/runs?projectId=${t.projectId}&ciBuildId=build-77&limit=1`, { auth: t.apiKey });
    expect(res.status).toBe(200);
    expect(res.body.total).toBe(2);
    expect(res.body.data.map((r: { id: string }) => r.id)).toEqual([later.id]);
    const none = await t.api('GET', `/runs?projectId=${t.projectId}&ciBuildId=nope`, { auth: t.apiKey });
    expect(none.body).toMatchObject({ total: 0, data: [] });
  });
});
