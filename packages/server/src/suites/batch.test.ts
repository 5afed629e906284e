import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer, type TestUser } from '../testing/harness.js';
import { countRows, createRun } from '../testing/results.js';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(async () => {
  await t?.close();
});

const batch = (suites: Record<string, unknown>[], auth: string | TestUser = t.apiKey, server = t) => server.api('POST', '/test-suites/batch', { auth, body: { suites } });
const tree = async (runId: string) => (await t.api('GET', `/test-suites?runId=${runId}&projectId=${t.projectId}`, { auth: t.apiKey })).body.data;

describe('POST /test-suites/batch', () => {
  it('stores a tree in one request, nesting by parentIndex, and answers the suites in request order', async () => {
    const run = await createRun(t);
    const p = { runId: run.id, projectId: t.projectId, filePath: 'tests/cart.spec.ts' };
    const res = await batch([
      { ...p, title: 'cart.spec.ts' },
      { ...p, title: 'cart', parentIndex: 0 },
      { ...p, title: 'checkout', parentIndex: 1 },
      { ...p, title: 'empty cart', parentIndex: 1 },
      { runId: run.id, projectId: t.projectId, title: 'login.spec.ts' },
    ]);
    expect(res.status).toBe(201);
    const [file, cart, checkout, empty, login] = res.body.data;
    expect(file).toEqual({ id: expect.any(String), runId: run.id, projectId: t.projectId, title: 'cart.spec.ts', filePath: 'tests/cart.spec.ts', parentSuiteId: null, createdAt: expect.any(String) });
    expect([cart.parentSuiteId, checkout.parentSuiteId, empty.parentSuiteId, login.parentSuiteId]).toEqual([file.id, cart.id, cart.id, null]);
    expect(login.filePath).toBeNull();
    const names = (nodes: { title: string; children: unknown[] }[]): unknown => nodes.map((n) => [n.title, names(n.children as never)]);
    expect(names(await tree(run.id))).toEqual([['cart.spec.ts', [['cart', [['checkout', []], ['empty cart', []]]]]], ['login.spec.ts', []]]);
  });

  it('upserts like POST /test-suites: a known suite (or a repeat within the batch) keeps its id; parentSuiteId names stored suites', async () => {
    const run = await createRun(t);
    const p = { runId: run.id, projectId: t.projectId };
    const first = await t.api('POST', '/test-suites', { auth: t.apiKey, body: { ...p, title: 'a' } });
    const res = await batch([
      { ...p, title: 'a' },
      { ...p, title: 'b', parentSuiteId: first.body.id },
      { ...p, title: 'b', parentIndex: 0 },
      { ...p, title: 'b' },
    ]);
    expect(res.status).toBe(201);
    const [a, b1, b2, b3] = res.body.data;
    expect(a).toEqual(first.body);
    expect(b2.id).toBe(b1.id);
    // An omitted parent keeps the stored one, as in POST /test-suites.
    expect(b3).toEqual(b1);
    expect((await tree(run.id)).map((n: { title: string }) => n.title)).toEqual(['a']);
  });

  it('names the item and field of a bad suite and stores nothing of the batch', async () => {
    const run = await createRun(t);
    const p = { runId: run.id, projectId: t.projectId };
    const before = (await countRows(t)).test_suites;
    const cases: [Record<string, unknown>[], string, string][] = [
      [[{ ...p, title: 'ok' }, { ...p, title: '' }], 'suites[1].title', 'required'],
      [[{ ...p, title: 'ok' }, { ...p, title: 'x', parentIndex: 1 }], 'suites[1].parentIndex', 'invalid_value'],
      [[{ ...p, title: 'ok' }, { ...p, title: 'x', parentIndex: 0, parentSuiteId: null }], 'suites[1].parentIndex', 'invalid_value'],
      [[{ ...p, title: 'ok' }, { ...p, title: 'x', parentSuiteId: 'nope' }], 'suites[1].parentSuiteId', 'invalid_value'],
      [[{ ...p, title: 'ok' }, { ...p, title: 'x', runId: 'nope' }], 'suites[1].runId', 'invalid_value'],
      // A cycle: b under a, then a under b.
      [[{ ...p, title: 'a' }, { ...p, title: 'b', parentIndex: 0 }, { ...p, title: 'a', parentIndex: 1 }], 'suites[2].parentIndex', 'invalid_value'],
    ];
    for (const [suites, field, reason] of cases) {
      const res = await batch(suites);
      expect(res.status, field).toBe(400);
      expect(res.body.error.details, field).toMatchObject({ field, reason });
      expect(res.body.error.message).toContain(field);
    }
    const otherRun = await createRun(t);
    const crossRun = await batch([{ ...p, title: 'a' }, { runId: otherRun.id, projectId: t.projectId, title: 'b', parentIndex: 0 }]);
    expect(crossRun.body.error.details).toMatchObject({ field: 'suites[1].parentIndex', reason: 'invalid_value' });
    expect((await countRows(t)).test_suites).toBe(before);

    expect((await batch([])).body.error.details).toMatchObject({ field: 'suites', reason: 'out_of_range' });
    const tooMany = Array.from({ length: 501 }, (_, i) => ({ ...p, title: `s${i}` }));
    expect((await batch(tooMany)).body.error.details).toMatchObject({ field: 'suites', reason: 'out_of_range' });
  });

  it('takes 500 suites at once', async () => {
    const run = await createRun(t);
    const suites = Array.from({ length: 500 }, (_, i) => ({ runId: run.id, projectId: t.projectId, title: `s${i}`, ...(i > 0 ? { parentIndex: i - 1 } : {}) }));
    const res = await batch(suites);
    expect(res.status).toBe(201);
    expect(res.body.data).toHaveLength(500);
    expect(res.body.data[499].parentSuiteId).toBe(res.body.data[498].id);
  });

  it('checks role and project scope per project of the batch', async () => {
    const run = await createRun(t);
    const p = { runId: run.id, projectId: t.projectId };
    const viewer = await t.createUser({ teamId: t.teamId, role: 'viewer' });
    expect((await batch([{ ...p, title: 'v' }], viewer)).status).toBe(403);
    const member = await t.createUser({ teamId: t.teamId, role: 'member' });
    expect((await batch([{ ...p, title: 'm' }], member)).status).toBe(201);

    const other = await t.createOtherTenant();
    const foreign = await t.api('POST', '/runs', { auth: other.apiKey, body: { projectId: other.projectId, status: 'running' } });
    const before = (await countRows(t)).test_suites;
    const mixed = await batch([{ ...p, title: 'mine' }, { runId: foreign.body.id, projectId: other.projectId, title: 'theirs' }]);
    expect(mixed.status).toBe(403);
    expect(mixed.body.error.details.field).toBe('suites[1].projectId');
    // A run of another project under my project id looks like no run at all.
    expect((await batch([{ runId: foreign.body.id, projectId: t.projectId, title: 'x' }])).body.error.details.field).toBe('suites[0].runId');
    expect((await countRows(t)).test_suites).toBe(before);
    expect((await t.api('POST', '/test-suites/batch', { body: { suites: [{ ...p, title: 'anon' }] } })).status).toBe(401);
  });

  it('counts one request of the testsWrite group whatever the batch size', async () => {
    const limited = await startTestServer({ rateLimits: true });
    try {
      const run = await limited.api('POST', '/runs', { auth: limited.apiKey, body: { projectId: limited.projectId, status: 'running' } });
      const suites = Array.from({ length: 500 }, (_, i) => ({ runId: run.body.id, projectId: limited.projectId, title: `s${i}` }));
      const res = await batch(suites, limited.apiKey, limited);
      expect(res.status).toBe(201);
      expect(res.headers.get('ratelimit-limit')).toBe('60');
      expect(res.headers.get('ratelimit-remaining')).toBe('59');
    } finally {
      await limited.close();
    }
  });
});
