import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../testing/harness.js';
import { createRun, postTests, testBody } from '../testing/results.js';

/*
 * GET /runs/:id/compare?base= against a real server: two runs of different branches where each
 * test is of a known kind (new failure, fixed, still failing, added, removed, slower, faster, and
 * changes too small to count), and what the comparison says about them.
 */
let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(async () => {
  await t?.close();
});

type Outcome = [status: string, duration: number];
const result = (runId: string, name: string, [status, duration]: Outcome) =>
  testBody(runId, t.projectId, {
    title: name, fullTitle: `shop > ${name}`, filePath: `tests/${name}.spec.ts`, status, duration,
    ...(status === 'failed' ? { error: { message: `\u001b[31mError: ${name} broke\u001b[39m\n  at tests/${name}.spec.ts:3:1` } } : {}),
  });

async function runWith(branch: string, outcomes: Record<string, Outcome>) {
  const run = await createRun(t, { branch, commitSha: `sha-${branch}` });
  const names = Object.keys(outcomes);
  const ids = names.length ? await postTests(t, Object.entries(outcomes).map(([name, o]) => result(run.id, name, o))) : [];
  expect((await t.api('PATCH', `/runs/${run.id}`, { auth: t.apiKey, body: { status: 'failed' } })).status).toBe(200);
  return { runId: run.id, ids: Object.fromEntries(Object.keys(outcomes).map((name, i) => [name, ids[i].id])) };
}

let base: Awaited<ReturnType<typeof runWith>>;
let run: Awaited<ReturnType<typeof runWith>>;
beforeAll(async () => {
  base = await runWith('main', {
    broke: ['passed', 100], healed: ['failed', 100], still: ['failed', 100], slow: ['passed', 1000], quick: ['passed', 1000],
    gone: ['passed', 10], skipped: ['skipped', 0], tiny: ['passed', 50], steady: ['passed', 1000],
  });
  run = await runWith('feature/x', {
    broke: ['failed', 100], healed: ['passed', 100], still: ['failed', 100], slow: ['passed', 1500], quick: ['passed', 700],
    fresh: ['passed', 10], skipped: ['passed', 500], tiny: ['passed', 120], steady: ['passed', 1150],
  });
});

const titles = (list: { items: { fullTitle: string }[] }) => list.items.map((i) => i.fullTitle);

describe('GET /runs/:id/compare', () => {
  it('sorts every test into the lists and names both results with status and duration', async () => {
    const res = await t.api('GET', `/runs/${run.runId}/compare?base=${base.runId}`, { auth: t.apiKey });
    expect(res.status).toBe(200);
    const c = res.body;
    expect(c.run).toMatchObject({ id: run.runId, branch: 'feature/x', commitSha: 'sha-feature/x', totalTests: 9, failedTests: 2 });
    expect(c.base).toMatchObject({ id: base.runId, branch: 'main', totalTests: 9, failedTests: 2, skippedTests: 1 });
    expect(titles(c.newFailures)).toEqual(['shop > broke']);
    expect(c.newFailures.items[0]).toEqual({
      testId: run.ids.broke, baseTestId: base.ids.broke, title: 'broke', fullTitle: 'shop > broke', filePath: 'tests/broke.spec.ts',
      status: 'failed', baseStatus: 'passed', duration: 100, baseDuration: 100, error: 'Error: broke broke',
    });
    expect(titles(c.fixed)).toEqual(['shop > healed']);
    expect(c.fixed.items[0]).toMatchObject({ status: 'passed', baseStatus: 'failed', error: null });
    expect(titles(c.stillFailing)).toEqual(['shop > still']);
    expect(c.added).toEqual({ total: 1, items: [expect.objectContaining({ fullTitle: 'shop > fresh', testId: run.ids.fresh, baseTestId: null, baseStatus: null, baseDuration: null })] });
    expect(c.removed).toEqual({ total: 1, items: [expect.objectContaining({ fullTitle: 'shop > gone', testId: null, baseTestId: base.ids.gone, status: null, duration: null, baseDuration: 10 })] });
    // +50% and +500 ms counts; +15% (steady), +70 ms (tiny) and a test skipped in the base do not.
    expect(c.slower).toEqual({ total: 1, items: [expect.objectContaining({ fullTitle: 'shop > slow', duration: 1500, baseDuration: 1000 })] });
    expect(c.faster).toEqual({ total: 1, items: [expect.objectContaining({ fullTitle: 'shop > quick', duration: 700, baseDuration: 1000 })] });
  });

  it('compared the other way round, new failures and fixed swap and added and removed swap', async () => {
    const c = (await t.api('GET', `/runs/${base.runId}/compare?base=${run.runId}`, { auth: t.apiKey })).body;
    expect(titles(c.newFailures)).toEqual(['shop > healed']);
    expect(titles(c.fixed)).toEqual(['shop > broke']);
    expect(titles(c.added)).toEqual(['shop > gone']);
    expect(titles(c.removed)).toEqual(['shop > fresh']);
    expect(titles(c.slower)).toEqual(['shop > quick']);
    expect(titles(c.faster)).toEqual(['shop > slow']);
  });

  it('cuts each list to `limit` and keeps its total; a run compared with itself has nothing to say', async () => {
    const both = await runWith('main', { a: ['failed', 10], b: ['failed', 10], c: ['failed', 10] });
    const empty = await runWith('main', {});
    const c = (await t.api('GET', `/runs/${both.runId}/compare?base=${empty.runId}&limit=2`, { auth: t.apiKey })).body;
    expect(c.newFailures.total).toBe(3);
    expect(titles(c.newFailures)).toEqual(['shop > a', 'shop > b']);
    expect(c.added.total).toBe(3);
    const self = (await t.api('GET', `/runs/${both.runId}/compare?base=${both.runId}`, { auth: t.apiKey })).body;
    expect(self.stillFailing.total).toBe(3);
    for (const k of ['newFailures', 'fixed', 'added', 'removed', 'slower', 'faster']) expect(self[k], k).toEqual({ total: 0, items: [] });
  });

  it('needs `base` (400 naming it) and answers 404 for an unknown base or one of another project', async () => {
    const missing = await t.api('GET', `/runs/${run.runId}/compare`, { auth: t.apiKey });
    expect(missing.status).toBe(400);
    expect(missing.body.error.details.field).toBe('base');
    const bad = await t.api('GET', `/runs/${run.runId}/compare?base=${base.runId}&limit=0`, { auth: t.apiKey });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details.field).toBe('limit');
    const unknown = await t.api('GET', `/runs/${run.runId}/compare?base=01a20000-0000-7000-8000-000000000000`, { auth: t.apiKey });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.message).toBe('Base run not found');
    const other = await t.createOtherTenant();
    const foreign = await t.api('POST', '/runs', { auth: other.apiKey, body: { projectId: other.projectId, status: 'passed' } });
    const cross = await t.api('GET', `/runs/${run.runId}/compare?base=${foreign.body.id}`, { auth: t.apiKey });
    expect(cross.status).toBe(404);
    expect(cross.body.error.message).toBe('Base run not found');
    // The other tenant cannot reach our run at all, even naming its own run as base.
    expect((await t.api('GET', `/runs/${run.runId}/compare?base=${foreign.body.id}`, { auth: other.apiKey })).status).toBe(404);
  });

  it('is readable by a viewer', async () => {
    const viewer = await t.createUser({ teamId: t.teamId, role: 'viewer' });
    const res = await t.api('GET', `/runs/${run.runId}/compare?base=${base.runId}`, { auth: viewer });
    expect(res.status).toBe(200);
    expect(res.body.newFailures.total).toBe(1);
  });
});
