import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../testing/harness.js';
import { countRows, createRun, postTests, testBody } from '../testing/results.js';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(async () => {
  await t?.close();
});

const steps = [
  { title: 'browser fixture', category: 'fixture', status: 'passed', duration: 3 },
  { title: 'beforeEach', category: 'hook', duration: 1, steps: [{ title: 'goto /', category: 'action', duration: 1 }] },
  { title: 'click add', category: 'action', status: 'passed', duration: 5 },
  { title: 'expect count', category: 'assertion', status: 'failed', duration: 2, error: { message: 'expected 1' } },
];

const full = (runId: string) => ({
  ...testBody(runId, t.projectId),
  lineNumber: 12,
  status: 'failed',
  retries: 2,
  attempt: 3,
  tags: ['@cart'],
  annotations: [{ type: 'issue', description: 'JIRA-1' }],
  error: { message: 'Expected 1, received 0', stack: 'at cart.spec.ts:12', expected: '1', actual: '0' },
  steps,
  stdout: 'log line',
  stderr: 'warn line',
});

describe('POST /tests', () => {
  it('stores one result and answers the created fields; GET returns it in full', async () => {
    const run = await createRun(t, { branch: 'feature/x', commitSha: 'c0ffee' });
    const res = await t.api('POST', '/tests', { auth: t.apiKey, body: full(run.id) });
    expect(res.status).toBe(201);
    const b = res.body;
    expect(b).toEqual({
      id: expect.any(String), runId: run.id, projectId: t.projectId, title: 'adds items', fullTitle: 'cart > adds items',
      status: 'failed', duration: 120, isFlaky: false, createdAt: expect.any(String),
    });
    const got = await t.api('GET', `/tests/${b.id}`, { auth: t.apiKey });
    expect(got.status).toBe(200);
    expect(got.body).toEqual({
      id: b.id, runId: run.id, projectId: t.projectId, title: 'adds items', fullTitle: 'cart > adds items', filePath: 'tests/cart.spec.ts',
      lineNumber: 12, status: 'failed', duration: 120, retries: 2, attempt: 3, isFlaky: false, tags: ['@cart'],
      annotations: [{ type: 'issue', description: 'JIRA-1' }],
      error: { message: 'Expected 1, received 0', stack: 'at cart.spec.ts:12', expected: '1', actual: '0' },
      stdout: 'log line', stderr: 'warn line', owners: [], createdAt: b.createdAt, attempts: [],
    });
    const st = await t.api('GET', `/tests/${b.id}/steps`, { auth: t.apiKey });
    expect(st.status).toBe(200);
    expect(st.body.data.map((s: { title: string }) => s.title)).toEqual(['browser fixture', 'beforeEach', 'click add', 'expect count']);
    expect(st.body.data[0]).toEqual({ title: 'browser fixture', category: 'fixture', status: 'passed', duration: 3, error: null });
    expect(st.body.data[1].steps).toEqual([{ title: 'goto /', category: 'action', status: 'passed', duration: 1, error: null }]);
    expect(st.body.data[3]).toMatchObject({ category: 'assertion', status: 'failed', error: { message: 'expected 1' } });
  });

  it('marks a flaky-status result isFlaky and fills defaults for a minimal result', async () => {
    const run = await createRun(t);
    const res = await t.api('POST', '/tests', { auth: t.apiKey, body: testBody(run.id, t.projectId, { status: 'flaky', filePath: undefined }) });
    expect(res.body.isFlaky).toBe(true);
    const got = await t.api('GET', `/tests/${res.body.id}`, { auth: t.apiKey });
    expect(got.body).toMatchObject({ filePath: null, lineNumber: null, retries: 0, attempt: 0, tags: [], annotations: [], error: null, stdout: null, stderr: null });
    expect((await t.api('GET', `/tests/${res.body.id}/steps`, { auth: t.apiKey })).body).toEqual({ data: [] });
  });

  it.each(['runId', 'projectId', 'title', 'fullTitle', 'status', 'duration'])('refuses a result without %s naming it', async (field) => {
    const run = await createRun(t);
    const body: Record<string, unknown> = testBody(run.id, t.projectId);
    delete body[field];
    const res = await t.api('POST', '/tests', { auth: t.apiKey, body });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'VALIDATION_ERROR', details: { field, reason: 'required' } });
  });

  it('refuses a run of another project and a project out of reach', async () => {
    const other = await t.createOtherTenant();
    const foreignRun = await t.api('POST', '/runs', { auth: other.apiKey, body: { projectId: other.projectId, status: 'running' } });
    const r1 = await t.api('POST', '/tests', { auth: t.apiKey, body: testBody(foreignRun.body.id, t.projectId) });
    expect(r1.status).toBe(400);
    expect(r1.body.error.details).toMatchObject({ field: 'runId', reason: 'invalid_value' });
    const r2 = await t.api('POST', '/tests', { auth: t.apiKey, body: testBody(foreignRun.body.id, other.projectId) });
    expect(r2.status).toBe(403);
    expect(r2.body.error.details.field).toBe('projectId');
  });
});

describe('POST /tests/batch', () => {
  const many = (runId: string, n: number) => Array.from({ length: n }, (_, i) => testBody(runId, t.projectId, { title: `t${i}`, fullTitle: `batch > t${i}`, status: i % 10 === 0 ? 'failed' : 'passed' }));

  it('stores 500 results in order with one answer per test', async () => {
    const run = await createRun(t);
    const data = await postTests(t, many(run.id, 500));
    expect(data).toHaveLength(500);
    expect(data[499]).toMatchObject({ runId: run.id, title: 't499', fullTitle: 'batch > t499' });
    const list = await t.api('GET', `/tests?projectId=${t.projectId}&runId=${run.id}&limit=500`, { auth: t.apiKey });
    expect(list.body.total).toBe(500);
    expect(list.body.data[0].title).toBe('t499');
    const r = await t.api('GET', `/runs/${run.id}`, { auth: t.apiKey });
    expect(r.body).toMatchObject({ totalTests: 500, passedTests: 450, failedTests: 50, passRate: 90 });
  });

  it('stores nothing when one test of 500 is invalid, naming its index and field', async () => {
    const run = await createRun(t);
    const before = await countRows(t);
    const tests = many(run.id, 500);
    delete (tests[3] as Record<string, unknown>).title;
    const res = await t.api('POST', '/tests/batch', { auth: t.apiKey, body: { tests } });
    expect(res.status).toBe(400);
    expect(res.body.error.details).toMatchObject({ field: 'tests[3].title', reason: 'required' });
    expect(await countRows(t)).toEqual(before);
  });

  it('stores nothing when one test names a run of another project, naming its index', async () => {
    const other = await t.createOtherTenant();
    const foreignRun = await t.api('POST', '/runs', { auth: other.apiKey, body: { projectId: other.projectId, status: 'running' } });
    const run = await createRun(t);
    const before = await countRows(t);
    const tests = many(run.id, 10);
    tests[7] = testBody(foreignRun.body.id, t.projectId);
    const res = await t.api('POST', '/tests/batch', { auth: t.apiKey, body: { tests } });
    expect(res.status).toBe(400);
    expect(res.body.error.details).toMatchObject({ field: 'tests[7].runId', reason: 'invalid_value' });
    tests[7] = testBody(foreignRun.body.id, other.projectId);
    const forbidden = await t.api('POST', '/tests/batch', { auth: t.apiKey, body: { tests } });
    expect(forbidden.status).toBe(403);
    expect(forbidden.body.error.details.field).toBe('tests[7].projectId');
    expect(await countRows(t)).toEqual(before);
  });

  it('refuses an empty batch and more than 500', async () => {
    const run = await createRun(t);
    expect((await t.api('POST', '/tests/batch', { auth: t.apiKey, body: { tests: [] } })).status).toBe(400);
    const res = await t.api('POST', '/tests/batch', { auth: t.apiKey, body: { tests: many(run.id, 501) } });
    expect(res.status).toBe(400);
    expect(res.body.error.details.field).toBe('tests');
  });
});

describe('GET /tests', () => {
  it('filters by run, status and a case-insensitive search over title, path and error; pages newest first', async () => {
    const run = await createRun(t);
    const [a, b, c, d] = await postTests(t, [
      testBody(run.id, t.projectId, { title: 'Login works', fullTitle: 'auth > Login works', filePath: 'tests/auth.spec.ts' }),
      testBody(run.id, t.projectId, { title: 'logout', fullTitle: 'auth > logout', filePath: 'tests/auth.spec.ts', status: 'failed', error: { message: 'Timeout 5000ms exceeded' } }),
      testBody(run.id, t.projectId, { title: 'search 100%', fullTitle: 'misc > search 100%', filePath: 'tests/misc.spec.ts' }),
      testBody(run.id, t.projectId, { title: 'other', fullTitle: 'misc > other', filePath: 'tests/MISC.spec.ts', status: 'skipped' }),
    ]);
    const q = (s: string) => t.api('GET', `/tests?projectId=${t.projectId}&runId=${run.id}${s}`, { auth: t.apiKey }).then((r) => r.body);
    const all = await q('');
    expect(all).toMatchObject({ total: 4, limit: 50, offset: 0 });
    expect(all.data.map((x: { id: string }) => x.id)).toEqual([d.id, c.id, b.id, a.id]);
    expect(Object.keys(all.data[0]).sort()).toEqual(['ciAttempt', 'createdAt', 'duration', 'error', 'filePath', 'fullTitle', 'id', 'isFlaky', 'owners', 'runId', 'status', 'title'].sort());
    expect(all.data[2].error).toEqual({ message: 'Timeout 5000ms exceeded' });
    expect((await q('&status=failed')).data.map((x: { id: string }) => x.id)).toEqual([b.id]);
    expect((await q('&search=LOGIN')).data.map((x: { id: string }) => x.id)).toEqual([a.id]);
    expect((await q('&search=timeout')).data.map((x: { id: string }) => x.id)).toEqual([b.id]);
    expect((await q('&search=misc.spec')).total).toBe(2);
    // LIKE wildcards in the search are literal characters.
    expect((await q(`&search=${encodeURIComponent('100%')}`)).data.map((x: { id: string }) => x.id)).toEqual([c.id]);
    expect((await q('&search=_')).total).toBe(0);
    const page = await q('&limit=1&offset=1');
    expect(page).toMatchObject({ total: 4, limit: 1, offset: 1 });
    expect(page.data[0].id).toBe(c.id);
    const projectWide = await t.api('GET', `/tests?projectId=${t.projectId}&search=logout`, { auth: t.apiKey });
    expect(projectWide.body.data.map((x: { id: string }) => x.id)).toContain(b.id);
    expect((await t.api('GET', '/tests', { auth: t.apiKey })).body.error.details).toMatchObject({ field: 'projectId', reason: 'required' });
    expect((await t.api('GET', `/tests?projectId=${t.projectId}&status=broken`, { auth: t.apiKey })).status).toBe(400);
  });

  it('hides results of other projects: 403 on the list, 404 on the item', async () => {
    const other = await t.createOtherTenant();
    const run = await createRun(t);
    const [x] = await postTests(t, [testBody(run.id, t.projectId)]);
    expect((await t.api('GET', `/tests?projectId=${t.projectId}`, { auth: other.apiKey })).status).toBe(403);
    for (const p of [`/tests/${x.id}`, `/tests/${x.id}/steps`, `/tests/${x.id}/history`]) {
      expect((await t.api('GET', p, { auth: other.apiKey })).status).toBe(404);
    }
  });
});

describe('GET /tests/:id/history', () => {
  it('returns the last 20 results of the case across 25 runs, newest first, with each run branch and commit', async () => {
    const p = await t.createOtherTenant();
    const ids: string[] = [];
    const runIds: string[] = [];
    for (let i = 0; i < 25; i++) {
      const run = await t.api('POST', '/runs', { auth: p.apiKey, body: { projectId: p.projectId, status: 'running', branch: `b${i}`, commitSha: `sha${i}` } });
      runIds.push(run.body.id);
      const [res] = await postTests(t, [
        testBody(run.body.id, p.projectId, { status: i % 3 === 0 ? 'failed' : 'passed', duration: i }),
        testBody(run.body.id, p.projectId, { fullTitle: 'another case' }),
      ], p.apiKey);
      ids.push(res.id);
    }
    const h = await t.api('GET', `/tests/${ids[24]}/history`, { auth: p.apiKey });
    expect(h.status).toBe(200);
    expect(h.body.total).toBe(20);
    expect(h.body.data).toHaveLength(20);
    h.body.data.forEach((item: Record<string, unknown>, k: number) => {
      const i = 24 - k;
      expect(item).toEqual({ id: ids[i], runId: runIds[i], status: i % 3 === 0 ? 'failed' : 'passed', duration: i, branch: `b${i}`, commitSha: `sha${i}`, createdAt: expect.any(String) });
    });
    // Any result of the case answers with the same case history.
    const fromOld = await t.api('GET', `/tests/${ids[0]}/history`, { auth: p.apiKey });
    expect(fromOld.body.data[0].id).toBe(ids[24]);
  });
});
