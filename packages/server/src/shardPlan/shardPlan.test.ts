import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../testing/harness.js';
import { createRun, postTests, testBody } from '../testing/results.js';
import { splitIntoShards, typicalDurations } from './plan.js';

describe('splitIntoShards', () => {
  it('puts the longest files first into the least loaded shard, the same way every time', () => {
    const d = new Map([['a', 50], ['b', 40], ['c', 30], ['d', 20], ['e', 10], ['f', 10]]);
    const plan = splitIntoShards(d, 3);
    expect(plan).toEqual([
      { index: 1, files: ['a', 'f'], expectedDuration: 60 },
      { index: 2, files: ['b', 'e'], expectedDuration: 50 },
      { index: 3, files: ['c', 'd'], expectedDuration: 50 },
    ]);
    expect(splitIntoShards(new Map([...d].reverse()), 3)).toEqual(plan);
  });

  it('leaves shards empty when there are more shards than files', () => {
    expect(splitIntoShards(new Map([['a', 5]]), 3).map((s) => s.files)).toEqual([['a'], [], []]);
  });

  it('takes the median of a file over runs, so one slow run does not count', () => {
    const samples = [1, 2, 3].map((i) => ({ runId: `r${i}`, filePath: 'x', duration: i === 3 ? 10_000 : 100 }));
    expect(typicalDurations(samples).get('x')).toBe(100);
    expect(typicalDurations(samples.slice(0, 2).concat({ runId: 'r3', filePath: 'x', duration: 200 })).get('x')).toBe(100);
    expect(typicalDurations([{ runId: 'a', filePath: 'y', duration: 1 }, { runId: 'b', filePath: 'y', duration: 3 }]).get('y')).toBe(2);
  });
});

describe('GET /projects/:id/shard-plan', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer();
  });
  afterAll(async () => {
    await t?.close();
  });

  it('has no history at first: empty shards and basedOnRuns 0', async () => {
    const res = await t.api('GET', `/projects/${t.projectId}/shard-plan?total=2`, { auth: t.apiKey });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ total: 2, basedOnRuns: 0, shards: [{ index: 1, files: [], expectedDuration: 0 }, { index: 2, files: [], expectedDuration: 0 }] });
  });

  it('splits the files of finished runs by their summed test durations, and ignores running runs', async () => {
    const files = { 'a.spec.ts': [300, 300], 'b.spec.ts': [200], 'c.spec.ts': [100, 50], 'd.spec.ts': [40] };
    for (let i = 0; i < 2; i++) {
      const run = await createRun(t);
      const tests = Object.entries(files).flatMap(([f, ds]) => ds.map((d, k) => testBody(run.id, t.projectId, { filePath: f, title: `t${k}`, fullTitle: `${f} > t${k}`, duration: d })));
      await postTests(t, tests);
      await t.api('PATCH', `/runs/${run.id}`, { auth: t.apiKey, body: { status: 'passed' } });
    }
    // A run still going (and its odd durations) is not history yet.
    const running = await createRun(t);
    await postTests(t, [testBody(running.id, t.projectId, { filePath: 'd.spec.ts', duration: 99_999 })]);

    const res = await t.api('GET', `/projects/${t.projectId}/shard-plan?total=2`, { auth: t.apiKey });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      total: 2,
      basedOnRuns: 2,
      shards: [
        { index: 1, files: ['a.spec.ts'], expectedDuration: 600 },
        { index: 2, files: ['b.spec.ts', 'c.spec.ts', 'd.spec.ts'], expectedDuration: 390 },
      ],
    });
  });

  it('refuses a total outside 1..100 naming the field', async () => {
    for (const q of ['total=0', 'total=101', 'total=x', '']) {
      const res = await t.api('GET', `/projects/${t.projectId}/shard-plan?${q}`, { auth: t.apiKey });
      expect(res.status).toBe(400);
      expect(JSON.stringify(res.body)).toContain('total');
    }
  });
});
