import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReceiver, startTestServer, type TestServer } from '@testreport/server/testing';
import { ConflictError, PermissionError, TestReportClient, ValidationError, type TestCreate } from '@testreport/client';
import { clientFor } from './realServer.js';

/**
 * Issue 12: one run per CI build. A real server on a clock the test moves (no real 30-minute
 * wait), driven over HTTP with the SDK; background jobs are off, so the inactivity check and the
 * webhook worker run when the test calls them.
 */
let now = Date.parse('2026-03-01T10:00:00Z');
let t: TestServer;
let sdk: TestReportClient;
let hookId: string;
let build = 0;

beforeAll(async () => {
  t = await startTestServer({ backgroundJobs: false, now: () => new Date(now) });
  sdk = clientFor(t, t.apiKey);
  hookId = (await sdk.webhooks.create({ projectId: t.projectId, url: 'http://127.0.0.1:9/never-sent', events: ['run.completed', 'run.failed'] })).id;
});
afterAll(async () => {
  await t?.close();
});

const minutes = (n: number) => {
  now += n * 60_000;
};
/** A fresh CI build id per test, as GITHUB_RUN_ID would be. */
const newBuild = () => `gh-${Date.now()}-${++build}`;
const join = (ciBuildId: string, shardCurrent: number, shardTotal: number, extra: Record<string, unknown> = {}) =>
  sdk.runs.create({ projectId: t.projectId, status: 'running', branch: 'main', commitSha: 'c0ffee1', ciBuildId, shardCurrent, shardTotal, ...extra });
const aTest = (runId: string, title: string, status: TestCreate['status'] = 'passed'): TestCreate => ({
  runId, projectId: t.projectId, title, fullTitle: `suite > ${title}`, filePath: 'tests/ci.spec.ts', status, duration: 10,
});
/** A shard reports its end as the reporter does; answers the run as GET /runs/:id then shows it. */
async function end(runId: string, shardCurrent: number, status: 'passed' | 'failed', counts: Record<string, number> = {}, attempt?: number) {
  await sdk.runs.update(runId, { status, shardCurrent, ...(attempt ? { attempt } : {}), duration: 1000, ...counts });
  return sdk.runs.get(runId);
}
/** run.completed / run.failed deliveries queued for the project's webhook so far. */
async function deliveries() {
  const all = [];
  for await (const d of sdk.webhooks.iterateDeliveries(hookId)) all.push(d);
  return { completed: all.filter((d) => d.event === 'run.completed').length, failed: all.filter((d) => d.event === 'run.failed').length };
}

describe('run identity', () => {
  it('20 concurrent creates with one build key make one run: one 201, nineteen 200', async () => {
    const ciBuildId = newBuild();
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        t.api('POST', '/runs', { auth: t.apiKey, body: { projectId: t.projectId, status: 'running', ciBuildId, shardCurrent: (i % 4) + 1, shardTotal: 4 } }),
      ),
    );
    expect(answers.map((a) => a.status).sort()).toEqual([...Array(19).fill(200), 201]);
    const ids = new Set(answers.map((a) => a.body.id));
    expect(ids.size).toBe(1);
    const [runId] = [...ids];
    const page = await sdk.runs.list({ projectId: t.projectId, limit: 500 });
    expect(page.data.filter((r) => r.id === runId)).toHaveLength(1);
    // Same shard joining while its attempt still runs is the same attempt (a retried request).
    const shards = await sdk.runs.shards(runId);
    expect(shards.data.map((s) => [s.index, s.attempt, s.status])).toEqual([[1, 1, 'running'], [2, 1, 'running'], [3, 1, 'running'], [4, 1, 'running']]);
    expect(await sdk.runs.get(runId)).toMatchObject({ ciBuildId, shardTotal: 4, finishedShards: 0, status: 'running', finishReason: null });
  });

  it('groups split one build into separate runs; without a build id nothing is grouped', async () => {
    const ciBuildId = newBuild();
    const chromium = await join(ciBuildId, 1, 1, { group: 'chromium' });
    const firefox = await join(ciBuildId, 1, 1, { group: 'firefox' });
    expect(chromium.id).not.toBe(firefox.id);
    expect(chromium.group).toBe('chromium');
    const again = await join(ciBuildId, 1, 1, { group: 'chromium' });
    expect(again.id).toBe(chromium.id);

    const a = await t.api('POST', '/runs', { auth: t.apiKey, body: { projectId: t.projectId, status: 'running', group: 'chromium' } });
    const b = await t.api('POST', '/runs', { auth: t.apiKey, body: { projectId: t.projectId, status: 'running', group: 'chromium' } });
    expect([a.status, b.status]).toEqual([201, 201]);
    expect(a.body.id).not.toBe(b.body.id);
  });

  it('a shard that reports a different shardTotal gets 409 naming shardTotal', async () => {
    const ciBuildId = newBuild();
    await join(ciBuildId, 1, 3);
    const err = await join(ciBuildId, 2, 4).catch((e) => e);
    expect(err).toBeInstanceOf(ConflictError);
    expect(err.status).toBe(409);
    expect(err.message).toContain('shardTotal');
    // Omitted shardTotal means 1, which is a different build shape too.
    const res = await t.api('POST', '/runs', { auth: t.apiKey, body: { projectId: t.projectId, status: 'running', ciBuildId } });
    expect(res.status).toBe(409);
    expect(res.body.error.details).toMatchObject({ field: 'shardTotal' });
  });
});

describe('shards finish the run', () => {
  it('three shards join and each reports its end: the run finishes once, with the stored tests counted', async () => {
    const before = await deliveries();
    const ciBuildId = newBuild();
    const runs = [await join(ciBuildId, 1, 3), await join(ciBuildId, 2, 3), await join(ciBuildId, 3, 3)];
    const runId = runs[0].id;
    expect(runs.map((r) => [r.id, r.shardCurrent, r.attempt])).toEqual([[runId, 1, 1], [runId, 2, 1], [runId, 3, 1]]);
    await sdk.tests.createBatch([aTest(runId, 'a1'), aTest(runId, 'a2')]);
    await sdk.tests.createBatch([aTest(runId, 'b1'), aTest(runId, 'b2', 'failed'), aTest(runId, 'b3', 'skipped')]);
    await sdk.tests.createBatch([aTest(runId, 'c1', 'flaky')]);

    // The shards' own counts are the shard's; the run's come from the stored tests.
    await end(runId, 1, 'passed', { totalTests: 2, passedTests: 2 });
    await end(runId, 3, 'passed', { totalTests: 1, flakyTests: 1 });
    expect(await sdk.runs.get(runId)).toMatchObject({ status: 'running', finishedShards: 2, finishCount: 0 });
    const shard2End = { status: 'failed', shardCurrent: 2, duration: 2500, totalTests: 3, passedTests: 1, failedTests: 1, skippedTests: 1 } as const;
    await sdk.runs.update(runId, shard2End);
    const done = await sdk.runs.get(runId);
    // Shards run side by side: the run took as long as its longest shard.
    expect(done.duration).toBe(2500);
    expect(done).toMatchObject({ status: 'failed', totalTests: 6, passedTests: 3, failedTests: 1, skippedTests: 1, flakyTests: 1, passRate: 50 });
    // A retried PATCH of a shard that already ended finishes nothing again.
    await sdk.runs.update(runId, shard2End);

    const run = await sdk.runs.get(runId);
    expect(run).toMatchObject({ status: 'failed', finishedShards: 3, shardTotal: 3, finishReason: 'shards', finishCount: 1, totalTests: 6 });
    const shards = await sdk.runs.shards(runId);
    expect(shards.data.map((s) => [s.index, s.attempt, s.status, s.totalTests])).toEqual([[1, 1, 'passed', 2], [2, 1, 'failed', 3], [3, 1, 'passed', 1]]);
    expect(shards.data.map((s) => s.duration)).toEqual([1000, 2500, 1000]);
    expect(shards.data.every((s) => s.finishedAt !== null)).toBe(true);
    expect(await deliveries()).toEqual({ completed: before.completed + 1, failed: before.failed + 1 });
  });

  it('PATCH for a shard beyond shardTotal, or with counts that do not add up, is a 400 naming the field', async () => {
    const run = await join(newBuild(), 1, 2);
    const err = await sdk.runs.update(run.id, { status: 'passed', shardCurrent: 3 }).catch((e) => e);
    expect(err).toBeInstanceOf(ValidationError);
    expect(err.details).toMatchObject({ field: 'shardCurrent', reason: 'out_of_range' });
    // A shard's counts must add up, as a run's do; nothing is written.
    const bad = await sdk.runs.update(run.id, { status: 'passed', shardCurrent: 2, totalTests: 2, passedTests: 3 }).catch((e) => e);
    expect(bad).toBeInstanceOf(ValidationError);
    expect(bad.details).toMatchObject({ field: 'passedTests', reason: 'out_of_range' });
    expect((await sdk.runs.shards(run.id)).data.map((s) => [s.index, s.status])).toEqual([[1, 'running']]);
  });
});

describe('CI re-runs', () => {
  it('a re-run of a failed shard joins as attempt 2; the latest attempt counts and fail-then-pass is flaky', async () => {
    const ciBuildId = newBuild();
    const s1 = await join(ciBuildId, 1, 2, { attempt: 1 });
    await join(ciBuildId, 2, 2, { attempt: 1 });
    await sdk.tests.createBatch([aTest(s1.id, 'stable'), aTest(s1.id, 'heals', 'failed'), aTest(s1.id, 'still broken', 'failed')]);
    await end(s1.id, 1, 'failed');
    await end(s1.id, 2, 'passed');
    expect(await sdk.runs.get(s1.id)).toMatchObject({ status: 'failed', failedTests: 2, finishCount: 1 });

    // GitHub "re-run failed jobs": same GITHUB_RUN_ID, GITHUB_RUN_ATTEMPT=2, shard 1 only.
    const before = await deliveries();
    const rerun = await t.api('POST', '/runs', { auth: t.apiKey, body: { projectId: t.projectId, status: 'running', commitSha: 'c0ffee1', ciBuildId, shardCurrent: 1, shardTotal: 2, attempt: 2 } });
    expect(rerun.status).toBe(200);
    expect(rerun.body).toMatchObject({ id: s1.id, attempt: 2, shardCurrent: 1 });
    expect((await sdk.runs.get(s1.id)).status).toBe('running'); // reopened
    await sdk.tests.createBatch([aTest(s1.id, 'heals', 'passed'), aTest(s1.id, 'still broken', 'failed')]);
    await end(s1.id, 1, 'failed', {}, 2);

    const run = await sdk.runs.get(s1.id);
    // stable (attempt 1), heals (passed in attempt 2 after failing in 1 → flaky), still broken (attempt 2).
    expect(run).toMatchObject({ status: 'failed', totalTests: 3, passedTests: 1, failedTests: 1, flakyTests: 1, finishCount: 2, finishedShards: 2 });
    expect((await sdk.runs.shards(s1.id)).data.map((s) => [s.index, s.attempt, s.status])).toEqual([[1, 1, 'failed'], [1, 2, 'failed'], [2, 1, 'passed']]);
    expect(await deliveries()).toEqual({ completed: before.completed + 1, failed: before.failed + 1 });

    // The run page: shards with the superseded attempt, the healed test under "flaky", suite counts per latest attempt.
    const html = await fetch(`${t.url}/runs/${s1.id}`, { headers: { cookie: t.owner.cookie } }).then((r) => r.text());
    expect(html).toContain('Shards (2 of 2 finished)');
    expect(html).toContain('All 2 shards finished, finished 2 times');
    expect(html).toContain('1 (superseded)');
    expect(html).toContain('Flaky in this run (1)');
    // The header's counts, as the API gives them: per latest attempt.
    const card = (label: string) => html.match(new RegExp(`<span class="muted small">${label}</span><b class="[^"]*">([^<]+)</b>`))?.[1];
    expect(['Tests', 'Passed', 'Failed', 'Flaky', 'Skipped'].map(card)).toEqual(['3', '1', '1', '1', '0']);
    expect(html).toMatch(/tests\/ci\.spec\.ts<\/td><td class="num">3<\/td><td class="num s-passed">1<\/td><td class="num s-failed">1<\/td><td class="num s-flaky">1<\/td>/);
    // The suite tree lists each test once, as its latest attempt left it (attempt 1's results of re-run tests are gone).
    expect(html).toContain('3 tests');
    expect(html.match(/>heals</g)).toHaveLength(1);
    expect(html.match(/>still broken</g)).toHaveLength(1);
    // …with the status the counts give it: the healed test is flaky in the tree and under the flaky filter, not under passed.
    expect(html).toMatch(/<span class="badge s-flaky">flaky<\/span> <a href="\/tests\/[^"]+">heals<\/a>/);
    const tree = async (status: string) => {
      const page = await fetch(`${t.url}/runs/${s1.id}?status=${status}`, { headers: { cookie: t.owner.cookie } }).then((r) => r.text());
      const titles = [...page.matchAll(/<a href="\/tests\/[^"]+">([^<]+)<\/a> <span class="muted small">/g)].map((m) => m[1]);
      // The filtered tree's count says the same.
      expect(page).toContain(`<p class="muted small">${titles.length === 1 ? '1 test' : `${titles.length} tests`}</p>`);
      return titles;
    };
    expect(await tree('flaky')).toEqual(['heals']);
    expect(await tree('passed')).toEqual(['stable']);
    expect(await tree('failed')).toEqual(['still broken']);
    // The summary CI comments show reads the same: the healed test under flaky, attempt 1's failure of it gone.
    const summary = await sdk.runs.summary(s1.id);
    expect(summary.failed.items.map((i) => i.title)).toEqual(['still broken']);
    expect(summary.flaky.items.map((i) => i.title)).toEqual(['heals']);

    const flaky = await sdk.flakiness.list({ projectId: t.projectId });
    const heals = flaky.data.find((e) => e.fullTitle === 'suite > heals');
    expect(heals).toMatchObject({ totalRuns: 2, flakyRuns: 2, flakinessScore: 1 });
    expect(flaky.data.find((e) => e.fullTitle === 'suite > still broken')).toBeUndefined();
  });

  it('GET /tests?runId= of a re-run build lists each test once as its latest attempt left it; superseded=true adds the replaced results', async () => {
    const ciBuildId = newBuild();
    const run = await join(ciBuildId, 1, 2, { attempt: 1 });
    await join(ciBuildId, 2, 2, { attempt: 1 });
    await sdk.tests.createBatch([aTest(run.id, 'shard one'), aTest(run.id, 'heals', 'failed'), aTest(run.id, 'broken', 'failed')]);
    await end(run.id, 1, 'failed');
    await end(run.id, 2, 'passed');
    await join(ciBuildId, 1, 2, { attempt: 2 });
    await sdk.tests.createBatch([aTest(run.id, 'heals', 'passed'), aTest(run.id, 'broken', 'failed')]);
    await end(run.id, 1, 'failed', {}, 2);

    const listed = (page: { data: { title: string; status: string; ciAttempt: number }[] }) =>
      page.data.map((r) => `${r.title} ${r.status} #${r.ciAttempt}`).sort();
    const latest = await sdk.tests.list({ projectId: t.projectId, runId: run.id });
    expect(latest.total).toBe(3);
    expect(listed(latest)).toEqual(['broken failed #2', 'heals passed #2', 'shard one passed #1']);
    const iterated = [];
    for await (const r of sdk.tests.iterate({ projectId: t.projectId, runId: run.id, limit: 1 })) iterated.push(r);
    expect(listed({ data: iterated })).toEqual(listed(latest));

    const all = await sdk.tests.list({ projectId: t.projectId, runId: run.id, superseded: 'true' });
    expect(all.total).toBe(5);
    expect(listed(all)).toEqual(['broken failed #1', 'broken failed #2', 'heals failed #1', 'heals passed #2', 'shard one passed #1']);
    // A filter applies to what is listed: the healed test's failure of attempt 1 is not a failure of the build.
    expect(listed(await sdk.tests.list({ projectId: t.projectId, runId: run.id, status: 'failed' }))).toEqual(['broken failed #2']);
  });

  it('a retried job without an attempt number (GitLab) joins as the next attempt of its shard', async () => {
    const ciBuildId = newBuild();
    const first = await join(ciBuildId, 1, 1);
    await sdk.tests.createBatch([aTest(first.id, 'gl', 'failed')]);
    await end(first.id, 1, 'failed');
    const retried = await join(ciBuildId, 1, 1);
    expect(retried).toMatchObject({ id: first.id, attempt: 2 });
    await sdk.tests.createBatch([aTest(first.id, 'gl', 'passed')]);
    const done = await end(first.id, 1, 'passed');
    expect(done).toMatchObject({ status: 'passed', totalTests: 1, passedTests: 0, flakyTests: 1, failedTests: 0 });
  });
});

describe('inactivity timeout and late shards', () => {
  it('a shard that never finishes: after the project timeout the run finishes as 2 of 3; the late shard reopens and finishes it again', async () => {
    const owner = clientFor(t, t.owner);
    expect((await owner.projects.getSettings(t.projectId)).shardTimeoutMinutes).toBe(30);
    await owner.projects.updateSettings(t.projectId, { shardTimeoutMinutes: 5 });
    const receiver = await startReceiver();
    const hook = await sdk.webhooks.create({ projectId: t.projectId, url: receiver.url, events: ['run.completed'] });
    try {
      const ciBuildId = newBuild();
      const run = await join(ciBuildId, 1, 3);
      await join(ciBuildId, 2, 3);
      await join(ciBuildId, 3, 3);
      await sdk.tests.createBatch([aTest(run.id, 't1'), aTest(run.id, 't2')]);
      await end(run.id, 1, 'passed');
      await end(run.id, 2, 'passed');

      minutes(4);
      await sdk.tests.createBatch([aTest(run.id, 't3')]); // shard 3 is alive: results count as activity
      minutes(4);
      // (Idle runs of earlier tests time out here too; this run's shard 3 sent results 4 minutes ago.)
      await t.server.services.shardTimeouts.checkOnce();
      expect((await sdk.runs.get(run.id)).status).toBe('running');
      minutes(2);
      expect((await t.server.services.shardTimeouts.checkOnce()).finishedRuns).toBeGreaterThanOrEqual(1);
      expect((await t.server.services.shardTimeouts.checkOnce()).finishedRuns).toBe(0);

      const timedOut = await sdk.runs.get(run.id);
      expect(timedOut).toMatchObject({ status: 'passed', finishReason: 'timeout', finishedShards: 2, shardTotal: 3, finishCount: 1, totalTests: 3 });
      expect((await sdk.runs.shards(run.id)).data.map((s) => s.status)).toEqual(['passed', 'passed', 'timed_out']);

      // Shard 3 reports its end after all: the run finishes again, with all shards, and says so.
      await sdk.tests.createBatch([aTest(run.id, 't4', 'failed')]);
      const again = await end(run.id, 3, 'failed');
      expect(again).toMatchObject({ status: 'failed', finishReason: 'shards', finishedShards: 3, finishCount: 2, failedTests: 1, totalTests: 4 });

      // Passes of 20 until nothing is due (failed sends to the other hook are rescheduled, not due again).
      while ((await t.server.services.webhooks.deliverDueOnce()) > 0);
      // The worker sends in parallel: order by finish, not by arrival.
      const payloads = receiver.received.map((r) => JSON.parse(r.body)).filter((p) => p.data.run.id === run.id).sort((x, y) => x.data.run.finishCount - y.data.run.finishCount);
      // …each with the counts its finish decided the status on.
      expect(payloads.map((p) => [p.event, p.data.run.status, p.data.run.finishCount, p.data.run.reopened, p.data.run.finishReason, p.data.run.finishedShards, p.data.run.totalTests, p.data.run.failedTests])).toEqual([
        ['run.completed', 'passed', 1, false, 'timeout', 2, 3, 0],
        ['run.completed', 'failed', 2, true, 'shards', 3, 4, 1],
      ]);
      // The §8 fields are all still there.
      expect(Object.keys(payloads[1].data.run)).toEqual(expect.arrayContaining(['id', 'url', 'projectId', 'status', 'branch', 'commitSha', 'commitMessage', 'ciBuildUrl', 'totalTests', 'passedTests', 'failedTests', 'skippedTests', 'flakyTests', 'passRate', 'duration']));
    } finally {
      await sdk.webhooks.delete(hook.id);
      await receiver.close();
      await owner.projects.updateSettings(t.projectId, { shardTimeoutMinutes: 30 });
    }
  });

  it('a shard joining a finished run reopens it; it finishes again when that shard ends', async () => {
    const ciBuildId = newBuild();
    const run = await join(ciBuildId, 1, 1);
    await end(run.id, 1, 'passed');
    expect(await sdk.runs.get(run.id)).toMatchObject({ status: 'passed', finishCount: 1 });
    const late = await t.api('POST', '/runs', { auth: t.apiKey, body: { projectId: t.projectId, status: 'running', ciBuildId, shardCurrent: 1, shardTotal: 1 } });
    expect(late.status).toBe(200);
    expect(late.body).toMatchObject({ id: run.id, status: 'running', attempt: 2 });
    expect(await end(run.id, 1, 'passed')).toMatchObject({ status: 'passed', finishCount: 2 });
  });
});

describe('complete and cancel', () => {
  it('complete finishes a build run from what is stored; repeated, it changes nothing and sends nothing', async () => {
    const ciBuildId = newBuild();
    const run = await join(ciBuildId, 1, 2);
    await sdk.tests.createBatch([aTest(run.id, 'x')]);
    const before = await deliveries();
    const done = await sdk.runs.complete(run.id);
    expect(done).toMatchObject({ status: 'passed', finishReason: 'complete', finishedShards: 0, finishCount: 1, totalTests: 1 });
    expect((await sdk.runs.shards(run.id)).data.map((s) => s.status)).toEqual(['timed_out']);
    expect(await sdk.runs.complete(run.id)).toMatchObject({ finishCount: 1, finishReason: 'complete' });
    expect(await sdk.runs.cancel(run.id)).toMatchObject({ status: 'passed', finishCount: 1 });
    expect(await deliveries()).toEqual({ completed: before.completed + 1, failed: before.failed });
  });

  it('cancel finishes a run as cancelled; its running shards are cancelled too', async () => {
    const run = await join(newBuild(), 1, 3);
    const cancelled = await sdk.runs.cancel(run.id);
    expect(cancelled).toMatchObject({ status: 'cancelled', finishReason: 'cancel', finishCount: 1 });
    expect((await sdk.runs.shards(run.id)).data.map((s) => s.status)).toEqual(['cancelled']);
    // A shard ending late leaves a cancelled run cancelled.
    expect(await end(run.id, 2, 'passed')).toMatchObject({ status: 'cancelled', finishCount: 1 });
  });

  it('work on runs without a build id too, and follow the report role: a viewer may read shards but not complete or cancel', async () => {
    const plain = await sdk.runs.create({ projectId: t.projectId, status: 'running' });
    const viewer = clientFor(t, await t.createUser({ teamId: t.teamId, role: 'viewer' }));
    expect(await viewer.runs.shards(plain.id)).toEqual({ data: [] });
    for (const call of [() => viewer.runs.complete(plain.id), () => viewer.runs.cancel(plain.id)]) {
      const err = await call().catch((e) => e);
      expect(err).toBeInstanceOf(PermissionError);
      expect(err.status).toBe(403);
    }
    const member = clientFor(t, await t.createUser({ teamId: t.teamId, role: 'member' }));
    expect(await member.runs.complete(plain.id)).toMatchObject({ status: 'passed', finishReason: 'complete', finishedShards: null, group: null });
    // Counts a PATCH stored decide, as readers see them.
    const patched = await sdk.runs.create({ projectId: t.projectId, status: 'running' });
    await sdk.runs.update(patched.id, { totalTests: 2, passedTests: 1, failedTests: 1 });
    expect(await sdk.runs.complete(patched.id)).toMatchObject({ status: 'failed', failedTests: 1, finishReason: 'complete', finishCount: 1 });
    const other = await t.createOtherTenant();
    const hidden = await t.api('POST', `/runs/${plain.id}/cancel`, { auth: other.apiKey });
    expect(hidden.status).toBe(404);
  });
});

describe('runs without a build id are unchanged', () => {
  it('each create is a new run; PATCHed counts are served as sent; the status PATCH finishes once', async () => {
    const a = await t.api('POST', '/runs', { auth: t.apiKey, body: { projectId: t.projectId, status: 'running', shardCurrent: 1, shardTotal: 2 } });
    const b = await t.api('POST', '/runs', { auth: t.apiKey, body: { projectId: t.projectId, status: 'running', shardCurrent: 1, shardTotal: 2 } });
    expect([a.status, b.status]).toEqual([201, 201]);
    expect(a.body.id).not.toBe(b.body.id);
    expect(a.body.attempt).toBeNull();
    const before = await deliveries();
    await sdk.tests.createBatch([aTest(a.body.id, 'p'), aTest(a.body.id, 'q', 'failed')]);
    const patched = await sdk.runs.update(a.body.id, { status: 'passed', totalTests: 12, passedTests: 10 });
    expect(patched).toMatchObject({ status: 'passed', totalTests: 12, passedTests: 10, failedTests: 1 });
    expect(await sdk.runs.get(a.body.id)).toMatchObject({ status: 'passed', finishReason: 'status', finishCount: 1, finishedShards: null, group: null, shardCurrent: 1, shardTotal: 2 });
    await sdk.runs.update(a.body.id, { status: 'passed' });
    expect(await deliveries()).toEqual({ completed: before.completed + 1, failed: before.failed + 1 });
    expect(await sdk.runs.shards(a.body.id)).toEqual({ data: [] });
  });
});

describe('re-run after a timeout', () => {
  it('a reopened run whose timed-out shard never comes back finishes again when the re-run shard ends', async () => {
    const ciBuildId = newBuild();
    const run = await join(ciBuildId, 1, 2, { attempt: 1 });
    await join(ciBuildId, 2, 2, { attempt: 1 });
    await sdk.tests.createBatch([aTest(run.id, 'rt', 'failed')]);
    await end(run.id, 1, 'failed');
    minutes(31);
    await t.server.services.shardTimeouts.checkOnce();
    expect(await sdk.runs.get(run.id)).toMatchObject({ status: 'failed', finishReason: 'timeout', finishedShards: 1, finishCount: 1 });

    await join(ciBuildId, 1, 2, { attempt: 2 });
    expect(await sdk.runs.get(run.id)).toMatchObject({ status: 'running', finishReason: null });
    await sdk.tests.createBatch([aTest(run.id, 'rt', 'passed')]);
    const done = await end(run.id, 1, 'passed', {}, 2);
    // Shard 2 stays given up: the run finishes again at once, still "1 of 2" and still by timeout.
    expect(done).toMatchObject({ status: 'passed', finishReason: 'timeout', finishedShards: 1, finishCount: 2, flakyTests: 1, failedTests: 0 });
  });
});
