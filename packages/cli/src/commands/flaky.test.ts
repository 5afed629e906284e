import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRun, postTests, startTestServer, testBody, type TestServer } from '@testreport/server/testing';
import { keyContext } from '../testing/context.js';
import { listFlaky, setQuarantine } from './flaky.js';

let srv: TestServer;
/** The flaky case's latest result: the id `flaky list` shows for it. */
let flakyId: string;
/** An older result of the same case: quarantine takes any of them. */
let olderId: string;

beforeAll(async () => {
  srv = await startTestServer();
  // Two runs: "logs in" is flaky in one of them (score 0.5), "adds items" always passes.
  for (const status of ['flaky', 'passed'] as const) {
    const runId = (await createRun(srv)).id;
    const posted = await postTests(srv, [
      testBody(runId, srv.projectId),
      testBody(runId, srv.projectId, { title: 'logs in', fullTitle: 'auth > logs in', status, isFlaky: status === 'flaky', retries: status === 'flaky' ? 1 : 0 }),
    ]);
    await srv.api('PATCH', `/runs/${runId}`, { auth: srv.apiKey, body: { status: 'passed' } });
    olderId ??= posted[1].id;
    flakyId = posted[1].id;
  }
});

afterAll(() => srv?.close());

describe('flaky', () => {
  it('lists flaky test cases with their score; steady ones are not listed', async () => {
    const res = await listFlaky(keyContext(srv));
    expect(res.data).toHaveLength(1);
    expect(res.data[0]).toMatchObject({ testId: flakyId, fullTitle: 'auth > logs in', flakyRuns: 1, totalRuns: 2, flakinessScore: 0.5, isQuarantined: false });
    expect(res.summary).toMatchObject({ totalFlakyTests: 1, quarantinedTests: 0 });
    expect((await listFlaky(keyContext(srv), { minScore: 0.6 })).data).toHaveLength(0);
  });

  it('quarantines and releases the case any of its results belongs to', async () => {
    const q = await setQuarantine(keyContext(srv), { testId: olderId, isQuarantined: true });
    expect(q).toMatchObject({ isQuarantined: true });
    expect((await listFlaky(keyContext(srv), { quarantined: 'true' })).data.map((f) => f.testId)).toEqual([flakyId]);
    expect((await listFlaky(keyContext(srv), { quarantined: 'false' })).data).toHaveLength(0);

    await setQuarantine(keyContext(srv), { testId: flakyId, isQuarantined: false });
    expect((await listFlaky(keyContext(srv), { quarantined: 'true' })).data).toHaveLength(0);
    expect((await listFlaky(keyContext(srv))).summary.quarantinedTests).toBe(0);
  });
});
