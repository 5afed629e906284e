import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '@testreport/server/testing';
import { png, webm, zip } from '@testreport/server/testing';
import {
  AuthenticationError, NotFoundError, PayloadTooLargeError, PermissionError, RateLimitError, TestReportClient, ValidationError,
  type TestCreate,
} from '@testreport/client';
import { clientFor } from './realServer.js';

let t: TestServer;
let sdk: TestReportClient;
let other: Awaited<ReturnType<TestServer['createOtherTenant']>>;
const dir = mkdtempSync(join(tmpdir(), 'sdk-real-'));

beforeAll(async () => {
  t = await startTestServer();
  sdk = clientFor(t, t.apiKey);
  other = await t.createOtherTenant();
});
afterAll(async () => {
  await t?.close();
  rmSync(dir, { recursive: true, force: true });
});

const newRun = (extra: Record<string, unknown> = {}) => sdk.runs.create({ projectId: t.projectId, status: 'running', branch: 'main', ...extra });
const aTest = (runId: string, title: string, extra: Partial<TestCreate> = {}): TestCreate => ({
  runId, projectId: t.projectId, title, fullTitle: `suite > ${title}`, filePath: 'tests/a.spec.ts', status: 'passed', duration: 12, ...extra,
});

describe('identity', () => {
  it('me() says which key and project the client uses', async () => {
    const me = await sdk.me();
    expect(me.type).toBe('apiKey');
    if (me.type === 'apiKey') expect(me.project.id).toBe(t.projectId);
  });

  it('verify() accepts a key for the expected project', async () => {
    const me = await sdk.verify({ projectId: t.projectId });
    expect(me.type === 'apiKey' && me.apiKey.projectId).toBe(t.projectId);
  });

  it('verify() refuses a key of another project, naming both ids', async () => {
    const err = await sdk.verify({ projectId: other.projectId }).catch((e) => e);
    expect(err).toBeInstanceOf(PermissionError);
    expect(err.message).toContain(t.projectId);
    expect(err.message).toContain(other.projectId);
  });

  it('verify() refuses a deactivated key (rule 3)', async () => {
    const owner = clientFor(t, t.owner);
    const created = await owner.apiKeys.create({ projectId: t.projectId, name: 'to deactivate' });
    await owner.apiKeys.update(created.id, { isActive: false });
    const err = await clientFor(t, created.key).verify({ projectId: t.projectId }).catch((e) => e);
    expect(err).toBeInstanceOf(AuthenticationError);
    expect(err.status).toBe(401);
  });

  it('verify() for a user refuses a project outside their teams', async () => {
    const err = await clientFor(t, t.owner).verify({ projectId: other.projectId }).catch((e) => e);
    expect(err).toBeInstanceOf(PermissionError);
    expect(err.message).toContain(other.projectId);
  });
});

describe('runs', () => {
  it('create, get, list, update, delete', async () => {
    const run = await newRun({ commitSha: 'abc123', workers: 2 });
    expect(run).toMatchObject({ projectId: t.projectId, status: 'running', branch: 'main', commitSha: 'abc123', workers: 2 });
    expect((await sdk.runs.get(run.id)).id).toBe(run.id);
    const page = await sdk.runs.list({ projectId: t.projectId, branch: 'main', limit: 500 });
    expect(page.data.map((r) => r.id)).toContain(run.id);
    expect(page.limit).toBe(500);
    const updated = await sdk.runs.update(run.id, { status: 'passed', totalTests: 4, passedTests: 3, failedTests: 1, duration: 1500 });
    expect(updated).toMatchObject({ id: run.id, status: 'passed', totalTests: 4, passedTests: 3, duration: 1500 });
    expect((await sdk.runs.get(run.id)).passRate).toBe(75);
    expect(await sdk.runs.delete(run.id)).toMatchObject({ success: true });
    await expect(sdk.runs.get(run.id)).rejects.toBeInstanceOf(NotFoundError);
  });

  it('iterate() walks every page', async () => {
    const made = [];
    for (let i = 0; i < 5; i++) made.push((await newRun({ branch: 'iterate-me' })).id);
    const seen: string[] = [];
    for await (const run of sdk.runs.iterate({ projectId: t.projectId, branch: 'iterate-me', limit: 2 })) seen.push(run.id);
    expect(seen.sort()).toEqual(made.sort());
  });

  it('replays a create with the same Idempotency-Key instead of making a second run', async () => {
    const a = await newRun({ branch: 'idem' }, );
    const key = `idem-${a.id}`;
    const first = await sdk.runs.create({ projectId: t.projectId, status: 'running', branch: 'idem-2' }, { idempotencyKey: key });
    const second = await sdk.runs.create({ projectId: t.projectId, status: 'running', branch: 'idem-2' }, { idempotencyKey: key });
    expect(second.id).toBe(first.id);
    expect((await sdk.runs.list({ projectId: t.projectId, branch: 'idem-2' })).total).toBe(1);
  });

  it('turns bad input into ValidationError with the field', async () => {
    const err = await sdk.runs.create({ projectId: t.projectId, status: 'exploded' as 'running' }).catch((e) => e);
    expect(err).toBeInstanceOf(ValidationError);
    expect(err.details).toMatchObject({ field: 'status' });
    expect(err.message).toContain('field status');
  });

  it('hides runs of other tenants as NotFoundError', async () => {
    const theirs = await clientFor(t, other.apiKey).runs.create({ projectId: other.projectId, status: 'running' });
    await expect(sdk.runs.get(theirs.id)).rejects.toBeInstanceOf(NotFoundError);
    await expect(sdk.runs.list({ projectId: other.projectId })).rejects.toBeInstanceOf(PermissionError);
  });
});

describe('suites', () => {
  it('upsert creates once and returns the same suite again; list gives the tree', async () => {
    const run = await newRun();
    const root = await sdk.testSuites.upsert({ runId: run.id, projectId: t.projectId, title: 'login', filePath: 'tests/login.spec.ts' });
    const again = await sdk.testSuites.upsert({ runId: run.id, projectId: t.projectId, title: 'login', filePath: 'tests/login.spec.ts' });
    expect(again.id).toBe(root.id);
    const child = await sdk.testSuites.upsert({ runId: run.id, projectId: t.projectId, title: 'with SSO', filePath: 'tests/login.spec.ts', parentSuiteId: root.id });
    const tree = await sdk.testSuites.list({ runId: run.id, projectId: t.projectId });
    expect(tree.data).toHaveLength(1);
    expect(tree.data[0]).toMatchObject({ id: root.id, children: [{ id: child.id, title: 'with SSO', children: [] }] });
  });

  it('createBatch stores a tree in one request (parentIndex), all or nothing, and names the bad item', async () => {
    const run = await newRun();
    const p = { runId: run.id, projectId: t.projectId, filePath: 'tests/cart.spec.ts' };
    const { data } = await sdk.testSuites.createBatch([{ ...p, title: 'cart.spec.ts' }, { ...p, title: 'cart', parentIndex: 0 }]);
    expect(data.map((s) => [s.title, s.parentSuiteId])).toEqual([['cart.spec.ts', null], ['cart', data[0].id]]);
    const err = await sdk.testSuites.createBatch([{ ...p, title: 'new' }, { ...p, title: 'x', parentIndex: 5 }]).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ValidationError);
    expect((err as ValidationError).details?.field).toBe('suites[1].parentIndex');
    const tree = await sdk.testSuites.list({ runId: run.id, projectId: t.projectId });
    expect(tree.data.map((n) => n.title)).toEqual(['cart.spec.ts']);
  });
});

describe('tests', () => {
  it('create, get, steps (nested, in order), history, list', async () => {
    const run1 = await newRun();
    const run2 = await newRun();
    const steps = [
      { title: 'open page', category: 'action' as const, duration: 5, steps: [{ title: 'goto', category: 'action' as const }] },
      { title: 'expect title', category: 'assertion' as const, status: 'failed' as const, error: { message: 'nope' } },
    ];
    await sdk.tests.create(aTest(run1.id, 'history case'));
    const made = await sdk.tests.create(aTest(run2.id, 'history case', { status: 'failed', error: { message: 'boom', stack: 'at x' }, steps, tags: ['@smoke'] }));
    expect(made).toMatchObject({ runId: run2.id, status: 'failed', fullTitle: 'suite > history case' });
    const full = await sdk.tests.get(made.id);
    expect(full).toMatchObject({ id: made.id, error: { message: 'boom' }, tags: ['@smoke'], filePath: 'tests/a.spec.ts' });
    const got = await sdk.tests.steps(made.id);
    expect(got.data.map((s) => s.title)).toEqual(['open page', 'expect title']);
    expect(got.data[0]!.steps?.[0]?.title).toBe('goto');
    const history = await sdk.tests.history(made.id);
    expect(history.data.map((h) => h.runId)).toEqual([run2.id, run1.id]);
    const failed = await sdk.tests.list({ projectId: t.projectId, runId: run2.id, status: 'failed' });
    expect(failed.data.map((x) => x.id)).toEqual([made.id]);
  });

  it('createBatch stores all and answers in order', async () => {
    const run = await newRun();
    const res = await sdk.tests.createBatch([aTest(run.id, 'b1'), aTest(run.id, 'b2', { status: 'skipped' })]);
    expect(res.data.map((x) => x.title)).toEqual(['b1', 'b2']);
  });

  it('createMany splits 1,100 results into batches of ≤ 500 and keeps input order; iterate reads them back', async () => {
    const run = await newRun();
    const input = Array.from({ length: 1_100 }, (_, i) => aTest(run.id, `many ${i}`));
    const res = await sdk.tests.createMany(input, { batchSize: 500, concurrency: 2 });
    expect(res.data).toHaveLength(1_100);
    expect(res.data.map((x) => x.title)).toEqual(input.map((x) => x.title));
    const ids = new Set<string>();
    for await (const item of sdk.tests.iterate({ projectId: t.projectId, runId: run.id, limit: 500 })) ids.add(item.id);
    expect(ids.size).toBe(1_100);
  });

  it('createMany stops at the first failing batch and throws its error', async () => {
    const run = await newRun();
    const input = [aTest(run.id, 'ok 1'), aTest(run.id, 'ok 2'), { ...aTest(run.id, 'bad'), status: 'weird' as 'passed' }, aTest(run.id, 'never')];
    const err = await sdk.tests.createMany(input, { batchSize: 1, concurrency: 1 }).catch((e) => e);
    expect(err).toBeInstanceOf(ValidationError);
    const stored = await sdk.tests.list({ projectId: t.projectId, runId: run.id });
    expect(stored.data.map((x) => x.title).sort()).toEqual(['ok 1', 'ok 2']);
  });

  it('createMany re-sent with the same idempotencyKey after a failure fills the gap without duplicates', async () => {
    const run = await newRun();
    const input = [aTest(run.id, 'first'), { ...aTest(run.id, 'second'), duration: -1 }, aTest(run.id, 'third')];
    const err = await sdk.tests.createMany(input, { batchSize: 1, concurrency: 1, idempotencyKey: `fill-${run.id}` }).catch((e) => e);
    expect(err).toBeInstanceOf(ValidationError);
    // The field points into the caller's list, not into the one-item batch.
    expect(err.details.field).toBe('tests[1].duration');
    expect(err.message).toContain('tests[1].duration');
    input[1] = aTest(run.id, 'second');
    const res = await sdk.tests.createMany(input, { batchSize: 1, concurrency: 1, idempotencyKey: `fill-${run.id}` });
    expect(res.data.map((x) => x.title)).toEqual(['first', 'second', 'third']);
    const stored = await sdk.tests.list({ projectId: t.projectId, runId: run.id });
    expect(stored.data.map((x) => x.title).sort()).toEqual(['first', 'second', 'third']);
  });
});

describe('flakiness', () => {
  it('lists flaky cases, quarantines and releases them, and iterates', async () => {
    const run = await newRun();
    const flaky = await sdk.tests.create(aTest(run.id, 'wobbly', { status: 'flaky', isFlaky: true, retries: 1 }));
    await sdk.tests.create(aTest(run.id, 'solid'));
    const list = await sdk.flakiness.list({ projectId: t.projectId });
    const entry = list.data.find((e) => e.fullTitle === 'suite > wobbly');
    expect(entry).toMatchObject({ flakinessScore: 1, isQuarantined: false });
    expect(list.data.some((e) => e.fullTitle === 'suite > solid')).toBe(false);
    expect(list.summary.totalFlakyTests).toBeGreaterThanOrEqual(1);

    expect(await sdk.flakiness.quarantine(flaky.id, t.projectId)).toMatchObject({ testId: flaky.id, isQuarantined: true });
    const quarantined = await sdk.flakiness.list({ projectId: t.projectId, quarantined: 'true' });
    expect(quarantined.data.map((e) => e.fullTitle)).toContain('suite > wobbly');
    expect(await sdk.flakiness.release(flaky.id, t.projectId)).toMatchObject({ isQuarantined: false });
    expect(await sdk.flakiness.update({ testId: flaky.id, projectId: t.projectId, isQuarantined: false })).toMatchObject({ isQuarantined: false });

    const all = [];
    for await (const e of sdk.flakiness.iterate({ projectId: t.projectId, limit: 1 })) all.push(e.caseId);
    expect(all).toHaveLength(list.total);
  });
});

describe('artifacts', () => {
  it('uploads from a Buffer, a path and a stream; lists them with signed URLs that serve the bytes', async () => {
    const run = await newRun();
    const test = await sdk.tests.create(aTest(run.id, 'with artifacts'));
    const shot = png();
    const a = await sdk.artifacts.upload({ file: shot, fileName: 'shot.png', type: 'screenshot', runId: run.id, projectId: t.projectId, testId: test.id });
    expect(a).toMatchObject({ type: 'screenshot', fileName: 'shot.png', fileSize: shot.length, mimeType: 'image/png', testId: test.id });

    const videoPath = join(dir, 'video.webm');
    writeFileSync(videoPath, webm(3 * 1024 * 1024));
    const v = await sdk.artifacts.upload({ file: videoPath, type: 'video', runId: run.id, projectId: t.projectId });
    expect(v).toMatchObject({ type: 'video', fileName: 'video.webm', fileSize: 3 * 1024 * 1024, testId: null });

    const trace = zip({ 'trace.trace': 'x'.repeat(10_000) });
    const tr = await sdk.artifacts.upload({ file: Readable.from([trace.subarray(0, 100), trace.subarray(100)]), fileName: 'trace.zip', type: 'trace', runId: run.id, projectId: t.projectId });
    expect(tr).toMatchObject({ type: 'trace', fileSize: trace.length, mimeType: 'application/zip' });

    const listed = await sdk.artifacts.list({ runId: run.id });
    expect(listed.data.map((x) => x.id).sort()).toEqual([a.id, v.id, tr.id].sort());
    expect((await sdk.artifacts.list({ runId: run.id, testId: test.id })).data.map((x) => x.id)).toEqual([a.id]);
    const download = await fetch(listed.data.find((x) => x.id === a.id)!.url);
    expect(Buffer.from(await download.arrayBuffer())).toEqual(shot);
  });

  it('stops a stream that outgrows the cap of its type', async () => {
    const run = await newRun();
    async function* endless() {
      yield png();
      for (let i = 0; i < 200; i++) yield Buffer.alloc(64 * 1024);
    }
    const err = await sdk.artifacts.upload({ file: endless(), fileName: 'huge.png', type: 'screenshot', runId: run.id, projectId: t.projectId }).catch((e) => e);
    expect(err).toBeInstanceOf(PayloadTooLargeError);
    expect(err.status).toBe(413);
    expect((await sdk.artifacts.list({ runId: run.id })).data).toHaveLength(0);
  });
});

describe('rate limits of the real server', () => {
  it('a 429 whose Retry-After does not fit the budget comes back at once as RateLimitError with retryAfter', async () => {
    const limited = await startTestServer({ rateLimits: true });
    try {
      const client = clientFor(limited, limited.apiKey, { retryBudgetMs: 2_000 });
      const runs = await Promise.allSettled(Array.from({ length: 31 }, () => client.runs.create({ projectId: limited.projectId, status: 'running' })));
      const refused = runs.filter((r): r is PromiseRejectedResult => r.status === 'rejected').map((r) => r.reason);
      expect(runs.length - refused.length).toBe(30);
      expect(refused).toHaveLength(1);
      expect(refused[0]).toBeInstanceOf(RateLimitError);
      expect(refused[0].retryAfter).toBeGreaterThan(0);
      expect(refused[0].retryAfter).toBeLessThanOrEqual(60);
    } finally {
      await limited.close();
    }
  });
});
