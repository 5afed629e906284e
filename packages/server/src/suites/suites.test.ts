import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer, type TestUser } from '../testing/harness.js';
import { createRun } from '../testing/results.js';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(async () => {
  await t?.close();
});

const upsert = (body: Record<string, unknown>, auth: string | TestUser = t.apiKey) => t.api('POST', '/test-suites', { auth, body });

describe('POST /test-suites', () => {
  it('creates with 201 and answers the suite fields, then updates the same (run, title, filePath) with 200', async () => {
    const run = await createRun(t);
    const a = await upsert({ runId: run.id, projectId: t.projectId, title: 'cart.spec.ts', filePath: 'tests/cart.spec.ts' });
    expect(a.status).toBe(201);
    expect(a.body).toEqual({ id: expect.any(String), runId: run.id, projectId: t.projectId, title: 'cart.spec.ts', filePath: 'tests/cart.spec.ts', parentSuiteId: null, createdAt: expect.any(String) });
    const again = await upsert({ runId: run.id, projectId: t.projectId, title: 'cart.spec.ts', filePath: 'tests/cart.spec.ts' });
    expect(again.status).toBe(200);
    expect(again.body).toEqual(a.body);
    // Same title, other file → another suite; same title without a file → another suite.
    const otherFile = await upsert({ runId: run.id, projectId: t.projectId, title: 'cart.spec.ts', filePath: 'tests/other.spec.ts' });
    expect(otherFile.status).toBe(201);
    const noFile = await upsert({ runId: run.id, projectId: t.projectId, title: 'cart.spec.ts' });
    expect(noFile.status).toBe(201);
    expect(noFile.body.filePath).toBeNull();
    expect((await upsert({ runId: run.id, projectId: t.projectId, title: 'cart.spec.ts' })).status).toBe(200);
    // Another run gets its own suite.
    const run2 = await createRun(t);
    expect((await upsert({ runId: run2.id, projectId: t.projectId, title: 'cart.spec.ts', filePath: 'tests/cart.spec.ts' })).status).toBe(201);
  });

  it.each(['runId', 'projectId', 'title'])('refuses a suite without %s naming it', async (field) => {
    const run = await createRun(t);
    const body: Record<string, unknown> = { runId: run.id, projectId: t.projectId, title: 'x' };
    delete body[field];
    const res = await upsert(body);
    expect(res.status).toBe(400);
    expect(res.body.error.details).toMatchObject({ field, reason: 'required' });
  });

  it('refuses a parent of another run, an unknown parent, a cycle and a run of another project', async () => {
    const run = await createRun(t);
    const run2 = await createRun(t);
    const elsewhere = await upsert({ runId: run2.id, projectId: t.projectId, title: 'p' });
    const bad = await upsert({ runId: run.id, projectId: t.projectId, title: 'c', parentSuiteId: elsewhere.body.id });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details).toMatchObject({ field: 'parentSuiteId', reason: 'invalid_value' });
    expect((await upsert({ runId: run.id, projectId: t.projectId, title: 'c', parentSuiteId: 'nope' })).status).toBe(400);

    const a = await upsert({ runId: run.id, projectId: t.projectId, title: 'a' });
    const b = await upsert({ runId: run.id, projectId: t.projectId, title: 'b', parentSuiteId: a.body.id });
    const loop = await upsert({ runId: run.id, projectId: t.projectId, title: 'a', parentSuiteId: b.body.id });
    expect(loop.status).toBe(400);
    expect(loop.body.error.details.field).toBe('parentSuiteId');

    const other = await t.createOtherTenant();
    const foreign = await t.api('POST', '/runs', { auth: other.apiKey, body: { projectId: other.projectId, status: 'running' } });
    const wrongRun = await upsert({ runId: foreign.body.id, projectId: t.projectId, title: 'x' });
    expect(wrongRun.status).toBe(400);
    expect(wrongRun.body.error.details.field).toBe('runId');
    expect((await upsert({ runId: foreign.body.id, projectId: other.projectId, title: 'x' })).status).toBe(403);
    const viewer = await t.createUser({ teamId: t.teamId, role: 'viewer' });
    expect((await upsert({ runId: run.id, projectId: t.projectId, title: 'v' }, viewer)).status).toBe(403);
  });
});

describe('GET /test-suites', () => {
  it('returns root suites with children nested to any depth', async () => {
    const run = await createRun(t);
    const p = { runId: run.id, projectId: t.projectId };
    const file = await upsert({ ...p, title: 'cart.spec.ts', filePath: 'tests/cart.spec.ts' });
    const d1 = await upsert({ ...p, title: 'cart', filePath: 'tests/cart.spec.ts', parentSuiteId: file.body.id });
    const d2 = await upsert({ ...p, title: 'checkout', filePath: 'tests/cart.spec.ts', parentSuiteId: d1.body.id });
    const d3 = await upsert({ ...p, title: 'with coupon', filePath: 'tests/cart.spec.ts', parentSuiteId: d2.body.id });
    const sibling = await upsert({ ...p, title: 'empty cart', filePath: 'tests/cart.spec.ts', parentSuiteId: d1.body.id });
    const root2 = await upsert({ ...p, title: 'login.spec.ts', filePath: 'tests/login.spec.ts' });

    const res = await t.api('GET', `/test-suites?runId=${run.id}&projectId=${t.projectId}`, { auth: t.apiKey });
    expect(res.status).toBe(200);
    const node = (s: { body: { id: string; title: string; filePath: string | null; parentSuiteId: string | null; createdAt: string } }, children: unknown[]) => ({
      id: s.body.id, title: s.body.title, filePath: s.body.filePath, parentSuiteId: s.body.parentSuiteId, createdAt: s.body.createdAt, children,
    });
    expect(res.body).toEqual({
      data: [
        node(file, [node(d1, [node(d2, [node(d3, [])]), node(sibling, [])])]),
        node(root2, []),
      ],
    });

    const missing = await t.api('GET', `/test-suites?projectId=${t.projectId}`, { auth: t.apiKey });
    expect(missing.body.error.details).toMatchObject({ field: 'runId', reason: 'required' });
    expect((await t.api('GET', `/test-suites?runId=${run.id}`, { auth: t.apiKey })).body.error.details.field).toBe('projectId');
    const other = await t.createOtherTenant();
    expect((await t.api('GET', `/test-suites?runId=${run.id}&projectId=${t.projectId}`, { auth: other.apiKey })).status).toBe(403);
    expect((await t.api('GET', `/test-suites?runId=${run.id}&projectId=${other.projectId}`, { auth: other.apiKey })).status).toBe(404);
  });
});
