import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runPrefix } from '../artifacts/store.js';
import { png, upload } from '../testing/artifacts.js';
import type { Run } from '@testreport/contract';
import { startTestServer, type TestServer } from '../testing/harness.js';
import { countRows, createRun, postTests, testBody } from '../testing/results.js';

let t: TestServer;
const finished: Run[] = [];
beforeAll(async () => {
  t = await startTestServer();
  t.server.services.deps.events.on('run.finished', ({ run }) => {
    finished.push(run);
  });
});
afterAll(async () => {
  await t?.close();
});

const fullRun = {
  status: 'running',
  branch: 'main',
  commitSha: 'abc123',
  commitMessage: 'Fix cart',
  commitAuthor: 'Ada',
  ciProvider: 'github-actions',
  ciBuildId: '42',
  ciBuildUrl: 'https://ci.example.test/42',
  frameworkVersion: '1.50.0',
  workers: 4,
  shardCurrent: 1,
  shardTotal: 2,
  browser: 'chromium',
  os: 'linux',
  viewport: '1280x720',
  hostname: 'runner-1',
  runTitle: 'nightly',
  tags: ['@smoke'],
  grepPatterns: ['@smoke'],
};

describe('POST /runs', () => {
  it('creates a run with every optional field and answers the created fields', async () => {
    const res = await t.api('POST', '/runs', { auth: t.apiKey, body: { projectId: t.projectId, ...fullRun } });
    expect(res.status).toBe(201);
    const b = res.body;
    for (const k of ['id', 'projectId', 'status', 'branch', 'commitSha', 'commitMessage', 'commitAuthor', 'ciProvider', 'ciBuildId', 'ciBuildUrl', 'frameworkVersion', 'browser', 'os', 'createdAt', 'updatedAt']) {
      expect(typeof b[k], k).toBe('string');
    }
    expect(b.workers).toBe(4);
    expect(b).toMatchObject({ projectId: t.projectId, status: 'running', branch: 'main', commitSha: 'abc123', frameworkVersion: '1.50.0', browser: 'chromium' });
    expect(new Date(b.createdAt).toISOString()).toBe(b.createdAt);

    const got = await t.api('GET', `/runs/${b.id}`, { auth: t.apiKey });
    expect(got.status).toBe(200);
    expect(got.body).toEqual({
      id: b.id, projectId: t.projectId, ...fullRun,
      totalTests: 0, passedTests: 0, failedTests: 0, skippedTests: 0, flakyTests: 0, passRate: 0, duration: null,
      // ciBuildId makes it the run of CI build 42 (issue 12): shard 1 of 2 has joined, none has ended.
      group: null, finishedShards: 0, finishReason: null, finishCount: 0,
      createdAt: b.createdAt, updatedAt: b.updatedAt,
    });
  });

  it.each(['projectId', 'status'])('refuses a run without %s naming the field', async (field) => {
    const body: Record<string, unknown> = { projectId: t.projectId, status: 'running' };
    delete body[field];
    const res = await t.api('POST', '/runs', { auth: t.apiKey, body });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'VALIDATION_ERROR', details: { field, reason: 'required' } });
  });

  it('refuses cancelled on create, bad viewport and a negative worker count', async () => {
    const cases: [Record<string, unknown>, string][] = [[{ status: 'cancelled' }, 'status'], [{ viewport: 'wide' }, 'viewport'], [{ workers: -1 }, 'workers']];
    for (const [extra, field] of cases) {
      const res = await t.api('POST', '/runs', { auth: t.apiKey, body: { projectId: t.projectId, status: 'running', ...extra } });
      expect(res.status).toBe(400);
      expect(res.body.error.details.field).toBe(field);
    }
  });

  it('refuses a project out of reach with 403 and a viewer with 403', async () => {
    const other = await t.createOtherTenant();
    const res = await t.api('POST', '/runs', { auth: t.apiKey, body: { projectId: other.projectId, status: 'running' } });
    expect(res.status).toBe(403);
    const viewer = await t.createUser({ teamId: t.teamId, role: 'viewer' });
    const v = await t.api('POST', '/runs', { auth: viewer, body: { projectId: t.projectId, status: 'running' } });
    expect(v.status).toBe(403);
    const member = await t.createUser({ teamId: t.teamId, role: 'member' });
    const m = await t.api('POST', '/runs', { auth: member, body: { projectId: t.projectId, status: 'running' } });
    expect(m.status).toBe(201);
    const hidden = await t.api('GET', `/runs/${m.body.id}`, { auth: other.apiKey });
    expect(hidden.status).toBe(404);
  });
});

describe('counts, passRate and finishing', () => {
  it('derives counts from stored tests until PATCHed, then serves the stored counts', async () => {
    const run = await createRun(t);
    await postTests(t, [
      ...['a', 'b', 'c'].map((x) => testBody(run.id, t.projectId, { title: x, fullTitle: x, status: 'passed' })),
      testBody(run.id, t.projectId, { title: 'd', fullTitle: 'd', status: 'failed' }),
      testBody(run.id, t.projectId, { title: 'e', fullTitle: 'e', status: 'skipped' }),
      testBody(run.id, t.projectId, { title: 'f', fullTitle: 'f', status: 'flaky' }),
    ]);
    const derived = await t.api('GET', `/runs/${run.id}`, { auth: t.apiKey });
    // 3 passed of 6 → 50%
    expect(derived.body).toMatchObject({ totalTests: 6, passedTests: 3, failedTests: 1, skippedTests: 1, flakyTests: 1, passRate: 50 });

    const patched = await t.api('PATCH', `/runs/${run.id}`, { auth: t.apiKey, body: { totalTests: 3, passedTests: 2, failedTests: 1, skippedTests: 0, flakyTests: 0, duration: 5000 } });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ id: run.id, status: 'running', totalTests: 3, passedTests: 2, failedTests: 1, skippedTests: 0, flakyTests: 0, duration: 5000 });
    expect(typeof patched.body.updatedAt).toBe('string');
    const after = await t.api('GET', `/runs/${run.id}`, { auth: t.apiKey });
    // 2 of 3 → 66.666… → 66.67
    expect(after.body).toMatchObject({ totalTests: 3, passedTests: 2, passRate: 66.67, duration: 5000 });
  });

  it('fires run.finished once per finish: on create as passed, and on running → failed / cancelled', async () => {
    finished.length = 0;
    const done = await createRun(t, { status: 'passed' });
    expect(finished.map((r) => r.id)).toEqual([done.id]);
    expect(finished[0]).toMatchObject({ status: 'passed', totalTests: 0, passRate: 0 });

    const run = await createRun(t);
    await postTests(t, [testBody(run.id, t.projectId, { status: 'failed' })]);
    expect(finished).toHaveLength(1);
    await t.api('PATCH', `/runs/${run.id}`, { auth: t.apiKey, body: { duration: 10 } });
    expect(finished).toHaveLength(1);
    const r = await t.api('PATCH', `/runs/${run.id}`, { auth: t.apiKey, body: { status: 'failed' } });
    expect(r.body.status).toBe('failed');
    expect(finished).toHaveLength(2);
    expect(finished[1]).toMatchObject({ id: run.id, status: 'failed', totalTests: 1, failedTests: 1, passRate: 0 });
    // Already finished: a second terminal status is not another finish.
    await t.api('PATCH', `/runs/${run.id}`, { auth: t.apiKey, body: { status: 'cancelled' } });
    expect(finished).toHaveLength(2);

    const c = await createRun(t);
    const cancelled = await t.api('PATCH', `/runs/${c.id}`, { auth: t.apiKey, body: { status: 'cancelled' } });
    expect(cancelled.status).toBe(200);
    expect(cancelled.body.status).toBe('cancelled');
    expect(finished.map((x) => x.id)).toEqual([done.id, run.id, c.id]);
  });

  it('refuses counts that do not add up after the PATCH with a 400 naming the field, and keeps the run as it was', async () => {
    const run = await createRun(t);
    await postTests(t, [
      testBody(run.id, t.projectId, { title: 'a', fullTitle: 'a', status: 'passed' }),
      testBody(run.id, t.projectId, { title: 'b', fullTitle: 'b', status: 'passed' }),
      testBody(run.id, t.projectId, { title: 'c', fullTitle: 'c', status: 'failed' }),
    ]);
    const before = (await t.api('GET', `/runs/${run.id}`, { auth: t.apiKey })).body;
    const cases: [Record<string, unknown>, string][] = [
      [{ totalTests: 4, passedTests: 10 }, 'passedTests'],
      // Checked against the counts the run will have: 3 stored tests, so 5 passed cannot be.
      [{ passedTests: 5, status: 'passed' }, 'passedTests'],
      [{ failedTests: 4 }, 'failedTests'],
      // 2 passed + 1 failed are stored: a total of 2 is smaller than its parts.
      [{ totalTests: 2 }, 'totalTests'],
      [{ totalTests: 4, passedTests: 2, failedTests: 1, skippedTests: 1, flakyTests: 1 }, 'totalTests'],
    ];
    for (const [body, field] of cases) {
      const res = await t.api('PATCH', `/runs/${run.id}`, { auth: t.apiKey, body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error.details).toMatchObject({ field, reason: 'out_of_range' });
      expect(res.body.error.message).toContain(field);
    }
    const after = (await t.api('GET', `/runs/${run.id}`, { auth: t.apiKey })).body;
    expect(after).toEqual(before);

    const ok = await t.api('PATCH', `/runs/${run.id}`, { auth: t.apiKey, body: { totalTests: 5, passedTests: 2, failedTests: 1, skippedTests: 1, flakyTests: 1 } });
    expect(ok.status).toBe(200);
    // Later PATCHes are checked against the stored counts.
    const tooMany = await t.api('PATCH', `/runs/${run.id}`, { auth: t.apiKey, body: { skippedTests: 3 } });
    expect(tooMany.body.error.details).toMatchObject({ field: 'skippedTests', reason: 'out_of_range' });
  });

  it('refuses unknown statuses and negative counts on PATCH, and unknown runs with 404', async () => {
    const run = await createRun(t);
    for (const body of [{ status: 'done' }, { totalTests: -1 }, { duration: 'long' }]) {
      const res = await t.api('PATCH', `/runs/${run.id}`, { auth: t.apiKey, body });
      expect(res.status).toBe(400);
      expect(res.body.error.details.field).toBe(Object.keys(body)[0]);
    }
    expect((await t.api('PATCH', '/runs/nope', { auth: t.apiKey, body: { status: 'passed' } })).status).toBe(404);
  });
});

describe('GET /runs', () => {
  it('lists newest first with filters, pagination and list-row fields', async () => {
    const p = await t.createOtherTenant();
    const mk = (status: string, branch: string) => t.api('POST', '/runs', { auth: p.apiKey, body: { projectId: p.projectId, status, branch } });
    const ids: string[] = [];
    for (const [s, b] of [['passed', 'main'], ['failed', 'main'], ['running', 'dev'], ['passed', 'dev'], ['failed', 'main']]) ids.push((await mk(s, b)).body.id);

    const all = await t.api('GET', `/runs?projectId=${p.projectId}`, { auth: p.apiKey });
    expect(all.status).toBe(200);
    expect(all.body).toMatchObject({ total: 5, limit: 50, offset: 0 });
    expect(all.body.data.map((r: Run) => r.id)).toEqual([...ids].reverse());
    expect(Object.keys(all.body.data[0]).sort()).toEqual(
      ['id', 'projectId', 'status', 'branch', 'commitSha', 'totalTests', 'passedTests', 'failedTests', 'skippedTests', 'flakyTests', 'passRate', 'duration', 'createdAt'].sort(),
    );

    const failedMain = await t.api('GET', `/runs?projectId=${p.projectId}&status=failed&branch=main`, { auth: p.apiKey });
    expect(failedMain.body.data.map((r: Run) => r.id)).toEqual([ids[4], ids[1]]);
    expect(failedMain.body.total).toBe(2);

    const page = await t.api('GET', `/runs?projectId=${p.projectId}&limit=2&offset=2`, { auth: p.apiKey });
    expect(page.body).toMatchObject({ total: 5, limit: 2, offset: 2 });
    expect(page.body.data.map((r: Run) => r.id)).toEqual([ids[2], ids[1]]);

    expect((await t.api('GET', `/runs?projectId=${p.projectId}&limit=501`, { auth: p.apiKey })).status).toBe(400);
    expect((await t.api('GET', `/runs?projectId=${p.projectId}&status=done`, { auth: p.apiKey })).body.error.details.field).toBe('status');
    const missing = await t.api('GET', '/runs', { auth: p.apiKey });
    expect(missing.body.error.details).toMatchObject({ field: 'projectId', reason: 'required' });
    expect((await t.api('GET', `/runs?projectId=${p.projectId}`, { auth: t.apiKey })).status).toBe(403);
  });

  it('derives counts for every run of a page', async () => {
    const p = await t.createOtherTenant();
    const a = await t.api('POST', '/runs', { auth: p.apiKey, body: { projectId: p.projectId, status: 'running' } });
    const b = await t.api('POST', '/runs', { auth: p.apiKey, body: { projectId: p.projectId, status: 'running' } });
    await postTests(t, [testBody(a.body.id, p.projectId, { status: 'failed' }), testBody(b.body.id, p.projectId), testBody(b.body.id, p.projectId, { fullTitle: 'x' })], p.apiKey);
    const list = await t.api('GET', `/runs?projectId=${p.projectId}`, { auth: p.apiKey });
    expect(list.body.data[0]).toMatchObject({ id: b.body.id, totalTests: 2, passedTests: 2, passRate: 100 });
    expect(list.body.data[1]).toMatchObject({ id: a.body.id, totalTests: 1, failedTests: 1, passRate: 0 });
  });
});

describe('DELETE /runs/:id', () => {
  it('removes the run with its tests, suites, cases and artifact files, leaving no orphan rows', async () => {
    const before = await countRows(t);
    const run = await createRun(t);
    const [only] = await postTests(t, [testBody(run.id, t.projectId, { fullTitle: 'only in deleted run' }), testBody(run.id, t.projectId)]);
    const up = await upload(t, { auth: t.apiKey, fields: { type: 'screenshot', runId: run.id, projectId: t.projectId, testId: only.id }, fileName: 'shot.png', content: png() });
    expect(up.status).toBe(201);
    const s = await t.api('POST', '/test-suites', { auth: t.apiKey, body: { runId: run.id, projectId: t.projectId, title: 'root' } });
    await t.api('POST', '/test-suites', { auth: t.apiKey, body: { runId: run.id, projectId: t.projectId, title: 'child', parentSuiteId: s.body.id } });
    const store = t.server.services.deps.store;
    const fileKey = `${runPrefix(t.projectId, run.id)}screenshot-1`;
    await store.put(fileKey, Readable.from([Buffer.from('png bytes')]));
    expect(await store.size(fileKey)).toBe(9);
    const mid = await countRows(t);
    expect(mid.tests - before.tests).toBe(2);
    expect(mid.test_suites - before.test_suites).toBe(2);
    expect(mid.artifacts - before.artifacts).toBe(1);
    const uploaded = await t.server.services.deps.db.selectFrom('artifacts').select('storage_key').where('run_id', '=', run.id).executeTakeFirstOrThrow();
    expect(await store.size(uploaded.storage_key)).toBeGreaterThan(0);

    const viewer = await t.createUser({ teamId: t.teamId, role: 'member' });
    expect((await t.api('DELETE', `/runs/${run.id}`, { auth: viewer })).status).toBe(403);

    const res = await t.api('DELETE', `/runs/${run.id}`, { auth: t.apiKey });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, message: expect.any(String) });
    expect((await t.api('GET', `/runs/${run.id}`, { auth: t.apiKey })).status).toBe(404);
    expect(await store.size(fileKey)).toBeNull();
    expect(await store.size(uploaded.storage_key)).toBeNull();
    const after = await countRows(t);
    // 'cart > adds items' existed before this run (earlier tests); 'only in deleted run' must be gone.
    expect(after).toEqual(before);
    const orphans = await t.server.services.deps.db
      .selectFrom('test_cases')
      .select('id')
      .where((eb) => eb.or([eb('latest_test_id', 'is', null), eb('latest_test_id', 'not in', eb.selectFrom('tests').select('id'))]))
      .execute();
    expect(orphans).toEqual([]);
    expect((await t.api('DELETE', `/runs/${run.id}`, { auth: t.apiKey })).status).toBe(404);
  });
});
