import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRun, postTests, startTestServer, testBody, type TestServer } from '@testreport/server/testing';
import { keyContext } from '../testing/context.js';
import { getTest, listTests, testHistory } from './tests.js';

let srv: TestServer;
let firstRun: string;
let secondRun: string;
let failedId: string;

const failing = (runId: string, projectId: string) =>
  testBody(runId, projectId, {
    title: 'pays',
    fullTitle: 'checkout > pays',
    status: 'failed',
    error: { message: 'Expected 200, got 500', stack: 'Error: Expected 200, got 500\n    at pays.spec.ts:12' },
    stdout: 'paying…',
    steps: [{ title: 'click pay', category: 'action', duration: 12, steps: [{ title: 'expect toast', category: 'assertion', status: 'failed', error: { message: 'no toast' } }] }],
  });

beforeAll(async () => {
  srv = await startTestServer();
  firstRun = (await createRun(srv, { branch: 'main', commitSha: 'a'.repeat(40) })).id;
  await postTests(srv, [testBody(firstRun, srv.projectId), failing(firstRun, srv.projectId)]);
  secondRun = (await createRun(srv, { branch: 'main', commitSha: 'b'.repeat(40) })).id;
  const second = await postTests(srv, [testBody(secondRun, srv.projectId), failing(secondRun, srv.projectId)]);
  failedId = second.find((t) => t.status === 'failed')!.id;
});

afterAll(() => srv?.close());

describe('tests', () => {
  it('lists results of the project, of one run, by status and by title search', async () => {
    const ctx = keyContext(srv);
    expect((await listTests(ctx)).total).toBe(4);
    const ofRun = await listTests(ctx, { runId: firstRun });
    expect(ofRun.data.every((t) => t.runId === firstRun)).toBe(true);
    expect(ofRun.total).toBe(2);
    const failed = await listTests(ctx, { runId: secondRun, status: 'failed' });
    expect(failed.data).toMatchObject([{ id: failedId, fullTitle: 'checkout > pays', status: 'failed' }]);
    const search = await listTests(ctx, { search: 'checkout' });
    expect(search.data.map((t) => t.fullTitle)).toEqual(['checkout > pays', 'checkout > pays']);
  });

  it('gets one result with its error and output; steps only when asked for', async () => {
    const plain = await getTest(keyContext(srv), { testId: failedId });
    expect(plain).toMatchObject({ id: failedId, status: 'failed', error: { message: 'Expected 200, got 500' }, stdout: 'paying…' });
    expect(plain).not.toHaveProperty('steps');
    const withSteps = await getTest(keyContext(srv), { testId: failedId, steps: true });
    expect(withSteps.steps).toMatchObject([{ title: 'click pay', category: 'action', steps: [{ title: 'expect toast', status: 'failed', error: { message: 'no toast' } }] }]);
  });

  it('shows the history of the same test case across runs, newest first', async () => {
    const history = await testHistory(keyContext(srv), { testId: failedId });
    expect(history.data.map((h) => [h.runId, h.status, h.commitSha])).toEqual([
      [secondRun, 'failed', 'b'.repeat(40)],
      [firstRun, 'failed', 'a'.repeat(40)],
    ]);
  });

  it('an unknown result id is a 404 from the server', async () => {
    await expect(getTest(keyContext(srv), { testId: '0193b7c3-0000-7000-8000-000000000000' })).rejects.toMatchObject({ status: 404, code: 'NOT_FOUND' });
  });
});
