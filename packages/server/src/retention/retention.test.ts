import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runPrefix } from '../artifacts/store.js';
import { startTestServer, type TestServer } from '../testing/harness.js';
import { countRows, postTests, testBody } from '../testing/results.js';

const DAY = 86_400_000;
let clock = new Date('2026-01-01T00:00:00Z');
let t: TestServer;
beforeAll(async () => {
  t = await startTestServer({ now: () => clock });
});
afterAll(async () => {
  await t?.close();
});

describe('retention sweep', () => {
  it('deletes runs older than each project’s dataRetentionDays with all they own, keeping the rest', async () => {
    const short = await t.createOtherTenant();
    const long = await t.createOtherTenant();
    expect((await t.api('PATCH', `/projects/${short.projectId}/settings`, { auth: short.owner, body: { dataRetentionDays: 7 } })).status).toBe(200);
    const db = t.server.services.deps.db;
    const store = t.server.services.deps.store;
    const before = await countRows(t);

    const mkRun = async (p: typeof short, status: string) => {
      const run = await t.api('POST', '/runs', { auth: p.apiKey, body: { projectId: p.projectId, status: 'running' } });
      await postTests(t, [testBody(run.body.id, p.projectId, { status }), testBody(run.body.id, p.projectId, { fullTitle: `only ${run.body.id}` })], p.apiKey);
      await t.api('POST', '/test-suites', { auth: p.apiKey, body: { runId: run.body.id, projectId: p.projectId, title: 'root' } });
      await store.put(`${runPrefix(p.projectId, run.body.id)}trace-1`, Readable.from([Buffer.from('zip')]));
      return run.body.id as string;
    };
    const oldShort = await mkRun(short, 'failed');
    const oldLong = await mkRun(long, 'passed');
    clock = new Date(clock.getTime() + 3 * DAY);
    const recentShort = await mkRun(short, 'passed');

    // Day 6: nothing is past 7 days yet.
    clock = new Date(clock.getTime() + 3 * DAY);
    expect(await t.server.services.retention.sweepOnce()).toEqual({ deletedRuns: 0 });

    // Day 8: the first run of the 7-day project goes; the 30-day project keeps its run of the same age.
    clock = new Date(clock.getTime() + 2 * DAY);
    expect(await t.server.services.retention.sweepOnce()).toEqual({ deletedRuns: 1 });
    expect((await t.api('GET', `/runs/${oldShort}`, { auth: short.apiKey })).status).toBe(404);
    expect((await t.api('GET', `/runs/${recentShort}`, { auth: short.apiKey })).status).toBe(200);
    expect((await t.api('GET', `/runs/${oldLong}`, { auth: long.apiKey })).status).toBe(200);
    expect(await store.size(`${runPrefix(short.projectId, oldShort)}trace-1`)).toBeNull();
    expect(await store.size(`${runPrefix(short.projectId, recentShort)}trace-1`)).toBe(3);

    const left = await db.selectFrom('tests').select('id').where('run_id', '=', oldShort).execute();
    expect(left).toEqual([]);
    const after = await countRows(t);
    // 3 runs made, 1 swept: 2 runs, 4 tests, 2 suites, 2 artifacts' files; cases: the shared
    // 'cart > adds items' of each project plus one 'only …' case per surviving run.
    expect(after.runs - before.runs).toBe(2);
    expect(after.tests - before.tests).toBe(4);
    expect(after.test_suites - before.test_suites).toBe(2);
    expect(after.test_cases - before.test_cases).toBe(4);

    // The swept failure no longer weighs on the shared case of the 7-day project.
    const h = await t.api('GET', `/tests?projectId=${short.projectId}`, { auth: short.apiKey });
    expect(h.body.data.every((x: { runId: string }) => x.runId === recentShort)).toBe(true);

    // Day 40: everything of both projects is past its window.
    clock = new Date(clock.getTime() + 32 * DAY);
    expect(await t.server.services.retention.sweepOnce()).toEqual({ deletedRuns: 2 });
    expect(await countRows(t)).toEqual(before);
  });

  it('runs as a background job that stops cleanly', async () => {
    const { job } = t.server.services.retention;
    job.start();
    await job.stop();
    await job.stop();
  });
});
