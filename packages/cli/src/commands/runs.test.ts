import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError } from '@testreport/client';
import { createRun, postTests, startTestServer, testBody, type TestServer } from '@testreport/server/testing';
import { UsageError } from '../lib/errors.js';
import { keyContext, testContext } from '../testing/context.js';
import { cancelRun, completeRun, deleteRun, getRun, listRuns, runShards } from './runs.js';

let srv: TestServer;
let mainRun: string;
let featureRun: string;

beforeAll(async () => {
  srv = await startTestServer();
  mainRun = (await createRun(srv, { branch: 'main', runTitle: 'nightly' })).id;
  await postTests(srv, [testBody(mainRun, srv.projectId), testBody(mainRun, srv.projectId, { title: 'pays', fullTitle: 'cart > pays', status: 'failed' })]);
  await srv.api('PATCH', `/runs/${mainRun}`, { auth: srv.apiKey, body: { status: 'failed', totalTests: 2, passedTests: 1, failedTests: 1 } });
  featureRun = (await createRun(srv, { branch: 'feature/x' })).id;
});

afterAll(() => srv?.close());

describe('runs', () => {
  it('lists the runs of the key’s project, newest first, filtered by branch and status', async () => {
    const all = await listRuns(keyContext(srv), { limit: 50, offset: 0 });
    expect(all.data.map((r) => r.id)).toEqual([featureRun, mainRun]);
    expect(all.total).toBe(2);
    const main = await listRuns(keyContext(srv), { branch: 'main' });
    expect(main.data.map((r) => r.id)).toEqual([mainRun]);
    const failed = await listRuns(keyContext(srv), { status: 'failed' });
    expect(failed.data).toMatchObject([{ id: mainRun, failedTests: 1, totalTests: 2 }]);
  });

  it('pages with limit and offset', async () => {
    const second = await listRuns(keyContext(srv), { limit: 1, offset: 1 });
    expect(second).toMatchObject({ total: 2, limit: 1, offset: 1 });
    expect(second.data.map((r) => r.id)).toEqual([mainRun]);
  });

  it('uses --project when given, and a key of another project is refused', async () => {
    const other = await srv.createOtherTenant();
    await expect(listRuns(keyContext(srv, { project: other.projectId }))).rejects.toMatchObject({ status: 403, code: 'FORBIDDEN' });
  });

  it('gets one run with its counts and metadata', async () => {
    const run = await getRun(keyContext(srv), { runId: mainRun });
    expect(run).toMatchObject({ id: mainRun, status: 'failed', branch: 'main', runTitle: 'nightly', totalTests: 2, passedTests: 1, failedTests: 1 });
  });

  it('refuses to delete without --yes when there is no terminal to ask on, and deletes nothing', async () => {
    const err = await deleteRun(keyContext(srv), { runId: featureRun }).catch((e) => e);
    expect(err).toBeInstanceOf(UsageError);
    expect(err.message).toMatch(/pass --yes/);
    expect((await getRun(keyContext(srv), { runId: featureRun })).id).toBe(featureRun);
  });

  it('deletes with --yes; the run is gone afterwards', async () => {
    const res = await deleteRun(keyContext(srv, { yes: true }), { runId: featureRun });
    expect(res.success).toBe(true);
    const gone = await getRun(keyContext(srv), { runId: featureRun }).catch((e) => e);
    expect(gone).toBeInstanceOf(ApiError);
    expect(gone).toMatchObject({ status: 404, code: 'NOT_FOUND' });
  });

  it('without any credentials says how to get some (a usage error)', async () => {
    const err = await listRuns(testContext({ url: srv.url })).catch((e) => e);
    expect(err).toBeInstanceOf(UsageError);
    expect(err.message).toMatch(/no credentials for .*TESTREPORT_API_KEY.*reporter login/);
  });
});

describe('runs of a CI build', () => {
  const build = (ciBuildId: string, shardCurrent: number, extra: Record<string, unknown> = {}) =>
    srv.api('POST', '/runs', { auth: srv.apiKey, body: { projectId: srv.projectId, status: 'running', ciBuildId, group: 'e2e', shardCurrent, shardTotal: 2, ...extra } });
  const gitlab = (pipeline: string) => ({ GITLAB_CI: 'true', CI_PIPELINE_ID: pipeline, CI_JOB_NAME: 'e2e 1/2' });

  it('lists every shard and attempt, and completes the build’s run found from the CI environment', async () => {
    const run = (await build('p-100', 1)).body;
    await build('p-100', 2);
    await srv.api('PATCH', `/runs/${run.id}`, { auth: srv.apiKey, body: { status: 'passed', totalTests: 0, shardCurrent: 1 } });
    const shards = await runShards(keyContext(srv), { runId: run.id });
    expect(shards.data.map((s) => [s.index, s.attempt, s.status])).toEqual([[1, 1, 'passed'], [2, 1, 'running']]);

    const ctx = testContext({ url: srv.url, apiKey: srv.apiKey }, { env: gitlab('p-100') });
    const done = await completeRun(ctx, {});
    expect(done).toMatchObject({ id: run.id, finishReason: 'complete', finishedShards: 1, shardTotal: 2 });
  });

  it('cancels by --build-id and --group, and says which build it could not find', async () => {
    const run = (await build('manual-7', 1)).body;
    const cancelled = await cancelRun(keyContext(srv), { buildId: 'manual-7', group: 'e2e' });
    expect(cancelled).toMatchObject({ id: run.id, status: 'cancelled' });
    // Another group of the same build is another run.
    await expect(cancelRun(keyContext(srv), { buildId: 'manual-7', group: 'unit' })).rejects.toThrow('no run of CI build manual-7 (group unit)');
    await expect(completeRun(keyContext(srv), {})).rejects.toThrow(UsageError);
  });
});
