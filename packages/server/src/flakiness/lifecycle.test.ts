import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../testing/harness.js';
import { testDbKind } from '../testing/database.js';
import { startReceiver } from '../testing/receiver.js';
import { postTests, testBody } from '../testing/results.js';

// The quarantine lifecycle of docs/decisions.md §13 on a clock the test moves: every run happens a minute
// after the one before, so "results stored after the quarantine" is a fact of the test, not of timing.
let clock = Date.parse('2026-03-01T08:00:00.000Z');
const tick = () => (clock += 60_000);
let t: TestServer;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
beforeAll(async () => {
  receiver = await startReceiver();
  t = await startTestServer({ backgroundJobs: false, now: () => new Date(clock) });
});
afterAll(async () => {
  await t?.close();
  await receiver?.close();
});

type Tenant = Awaited<ReturnType<TestServer['createOtherTenant']>>;
type Event = { action: string; actor: { type: string; id: string; name: string }; reason: string; score: number; at: string };

/** One finished run on `branch` per list of results; returns the result ids per case. */
async function run(p: Tenant, results: Record<string, string>, opts: { branch?: string; server?: TestServer; finish?: boolean } = {}) {
  tick();
  const server = opts.server ?? t;
  const created = await server.api('POST', '/runs', { auth: p.apiKey, body: { projectId: p.projectId, status: 'running', commitSha: `c${clock}`, branch: opts.branch ?? 'main' } });
  const cases = Object.keys(results);
  const out = await postTests(server, cases.map((c) => testBody(created.body.id, p.projectId, { title: c, fullTitle: `suite > ${c}`, status: results[c] })), p.apiKey);
  const ids = Object.fromEntries(cases.map((c, i) => [c, out[i].id]));
  const finish = () => server.api('PATCH', `/runs/${created.body.id}`, { auth: p.apiKey, body: { status: 'passed' } });
  if (opts.finish !== false) expect((await finish()).status).toBe(200);
  return { ids, finish };
}

const settings = async (p: Tenant, body: Record<string, unknown>) => {
  const res = await t.api('PATCH', `/projects/${p.projectId}/settings`, { auth: p.owner, body });
  expect(res.status).toBe(200);
  return res.body;
};
const entry = async (p: Tenant, title: string) =>
  (await t.api('GET', `/flakiness?projectId=${p.projectId}`, { auth: p.apiKey })).body.data.find((e: { testTitle: string }) => e.testTitle === title);
const events = async (p: Tenant, testId: string, server = t): Promise<Event[]> => {
  const res = await server.api('GET', `/flakiness/${testId}/events?projectId=${p.projectId}`, { auth: p.apiKey });
  expect(res.status).toBe(200);
  return res.body.data;
};

describe('quarantine policies', () => {
  it('quarantines a flaky test by policy with an event, and releases it after 10 clean passes on the default branch', async () => {
    const p = await t.createOtherTenant();
    const s = await settings(p, { autoQuarantineEnabled: true, flakinessThreshold: 0.3, autoQuarantineMinRuns: 5, autoReleaseAfterPasses: 10 });
    expect(s).toMatchObject({ autoQuarantineMinRuns: 5, autoReleaseAfterPasses: 10 });
    const hook = await t.api('POST', '/webhooks', { auth: p.owner, body: { projectId: p.projectId, url: receiver.url, events: ['test.quarantined', 'test.released'], secret: 'shh' } });
    expect(hook.status).toBe(201);

    let last = '';
    for (const status of ['flaky', 'passed', 'flaky', 'passed']) last = (await run(p, { E: status })).ids.E;
    expect(await events(p, last)).toEqual([]); // 4 results: not enough evidence yet
    const quarantinedAt = new Date(clock + 60_000).toISOString();
    last = (await run(p, { E: 'passed' })).ids.E;
    expect(await entry(p, 'E')).toMatchObject({ isQuarantined: true, isBroken: false, flakinessScore: 0.4 });
    expect(await events(p, last)).toEqual([
      { action: 'quarantined', actor: { type: 'policy', id: 'auto-quarantine', name: 'Auto-quarantine' }, reason: 'flakiness score 0.4 ≥ threshold 0.3 over 5 results', score: 0.4, at: quarantinedAt },
    ]);

    // Clean passes on another branch and a flaky pass on main do not count; then 9 clean passes are not enough.
    await run(p, { E: 'passed' }, { branch: 'feature' });
    await run(p, { E: 'flaky' });
    for (let i = 0; i < 9; i++) last = (await run(p, { E: 'passed' })).ids.E;
    expect((await entry(p, 'E')).isQuarantined).toBe(true);
    last = (await run(p, { E: 'passed' })).ids.E;
    expect((await entry(p, 'E')).isQuarantined).toBe(false);
    const trail = await events(p, last);
    expect(trail.map((e) => [e.action, e.actor.id])).toEqual([['released', 'auto-release'], ['quarantined', 'auto-quarantine']]);
    expect(trail[0]).toMatchObject({ actor: { type: 'policy', name: 'Auto-release' }, reason: '10 clean passes in a row on main', at: new Date(clock).toISOString() });

    // Both changes were queued as signed webhook deliveries.
    await t.server.services.webhooks.deliverDueOnce();
    await receiver.waitFor(2);
    const got = receiver.received.filter((r) => r.headers['x-testreport-event']?.toString().startsWith('test.'));
    // Due together, they may be sent in any order.
    const byEvent = new Map(got.map((r) => [JSON.parse(r.body).event as string, r]));
    expect([...byEvent.keys()].sort()).toEqual(['test.quarantined', 'test.released']);
    for (const r of got) expect(r.headers['x-testreport-signature']).toBe(createHmac('sha256', 'shh').update(r.body).digest('hex'));
    expect(JSON.parse(byEvent.get('test.quarantined')!.body).data.test).toMatchObject({
      fullTitle: 'suite > E', action: 'quarantined', isBroken: false, owners: [], actor: { type: 'policy', id: 'auto-quarantine' }, score: 0.4, url: expect.stringContaining('/tests/'),
    });
  }, 60_000);

  it('never auto-quarantines a broken test (failed in each of its last autoQuarantineMinRuns results on main)', async () => {
    const p = await t.createOtherTenant();
    // Flaky at first, then failing every time: the score stays over the threshold.
    for (const status of ['flaky', 'flaky', 'flaky', 'failed', 'failed', 'failed', 'failed', 'failed']) await run(p, { K: status, F: status === 'flaky' ? 'flaky' : 'passed' });
    await settings(p, { autoQuarantineEnabled: true, flakinessThreshold: 0.3, autoQuarantineMinRuns: 5 });
    const { ids } = await run(p, { K: 'failed', F: 'passed' });
    const k = await entry(p, 'K');
    expect(k).toMatchObject({ isQuarantined: false, isBroken: true, totalRuns: 9, flakyRuns: 3 });
    expect(k.flakinessScore).toBeGreaterThanOrEqual(0.3);
    expect(await events(p, ids.K)).toEqual([]);
    // F has the same score and is not broken: the same policy quarantined it.
    expect(await entry(p, 'F')).toMatchObject({ isQuarantined: true, isBroken: false });
  }, 30_000);

  it('records manual changes with their actor and reason, newest first, and refuses a viewer', async () => {
    const p = await t.createOtherTenant();
    const { ids } = await run(p, { M: 'passed' });
    const member = await t.createUser({ teamId: p.teamId, role: 'member' });
    const viewer = await t.createUser({ teamId: p.teamId, role: 'viewer' });
    const q = await t.api('POST', '/flakiness', { auth: member, body: { testId: ids.M, projectId: p.projectId, isQuarantined: true, reason: 'blocks the release' } });
    expect(q.status).toBe(200);
    // A repeat changes nothing and writes no event.
    expect((await t.api('POST', '/flakiness', { auth: member, body: { testId: ids.M, projectId: p.projectId, isQuarantined: true } })).status).toBe(200);

    const refused = await t.api('POST', '/flakiness', { auth: viewer, body: { testId: ids.M, projectId: p.projectId, isQuarantined: false } });
    expect(refused.status).toBe(403);
    expect((await entry(p, 'M')) ?? (await t.api('GET', `/flakiness?projectId=${p.projectId}&quarantined=true`, { auth: p.apiKey })).body.data[0]).toMatchObject({ isQuarantined: true });

    tick();
    expect((await t.api('POST', '/flakiness', { auth: p.apiKey, body: { testId: ids.M, projectId: p.projectId, isQuarantined: false } })).status).toBe(200);
    const trail = await events(p, ids.M);
    expect(trail.map((e) => [e.action, e.actor.type, e.reason])).toEqual([
      ['released', 'apiKey', 'released by hand'],
      ['quarantined', 'user', 'blocks the release'],
    ]);
    expect(trail[1].actor).toEqual({ type: 'user', id: member.userId, name: member.email.split('@')[0] });
    // A viewer may read the trail; another tenant may not, and an unknown test is a 404.
    expect((await t.api('GET', `/flakiness/${ids.M}/events?projectId=${p.projectId}`, { auth: viewer })).status).toBe(200);
    expect((await t.api('GET', `/flakiness/${ids.M}/events?projectId=${p.projectId}`, { auth: t.apiKey })).status).toBe(403);
    expect((await t.api('GET', `/flakiness/nope/events?projectId=${p.projectId}`, { auth: p.apiKey })).status).toBe(404);
    const missing = await t.api('GET', `/flakiness/${ids.M}/events`, { auth: p.apiKey });
    expect(missing.status).toBe(400);
    expect(missing.body.error.details).toMatchObject({ field: 'projectId', reason: 'required' });
  });

  it('refuses policy settings out of range', async () => {
    const p = await t.createOtherTenant();
    for (const [field, value] of [['autoQuarantineMinRuns', 1], ['autoQuarantineMinRuns', 51], ['autoReleaseAfterPasses', -1], ['autoReleaseAfterPasses', 1.5]] as const) {
      const res = await t.api('PATCH', `/projects/${p.projectId}/settings`, { auth: p.owner, body: { [field]: value } });
      expect(res.status).toBe(400);
      expect(res.body.error.details.field).toBe(field);
    }
  });
});

describe('two servers on one database', () => {
  let second: TestServer;
  beforeAll(async () => {
    second = await startTestServer({ dataDir: t.dataDir, databaseUrl: t.server.config.databaseUrl, backgroundJobs: false, now: () => new Date(clock) });
  });
  afterAll(async () => {
    await second?.close();
  });

  it('apply a policy once when both finish a run that makes the same test flaky enough', async () => {
    const p = await t.createOtherTenant();
    await settings(p, { autoQuarantineEnabled: true, flakinessThreshold: 0.3, autoQuarantineMinRuns: 5 });
    for (const status of ['flaky', 'passed', 'flaky', 'passed']) await run(p, { E: status });
    // Two runs each bring the 5th/6th result; they finish at once, one on each server.
    const a = await run(p, { E: 'passed' }, { finish: false });
    const b = await run(p, { E: 'passed' }, { server: second, finish: false });
    // At once on PostgreSQL; SQLite serves one server per file (see below), so one after the other.
    const [fa, fb] = testDbKind() === 'postgres' ? await Promise.all([a.finish(), b.finish()]) : [await a.finish(), await b.finish()];
    expect([fa.status, fb.status]).toEqual([200, 200]);
    expect((await entry(p, 'E')).isQuarantined).toBe(true);
    const trail = await events(p, a.ids.E, second);
    expect(trail.map((e) => e.action)).toEqual(['quarantined']);
  });

  it('write one event when both decide on the same run at the same moment (the conditional UPDATE decides)', async () => {
    const p = await t.createOtherTenant();
    let last: { ids: Record<string, string> } = { ids: {} };
    for (const status of ['flaky', 'passed', 'flaky', 'passed', 'passed']) last = await run(p, { E: status, G: status });
    await settings(p, { autoQuarantineEnabled: true, flakinessThreshold: 0.3, autoQuarantineMinRuns: 5 });
    const runId = (await t.api('GET', `/tests/${last.ids.E}`, { auth: p.apiKey })).body.runId;
    const apply = (s: TestServer) => s.server.services.flakiness.internal.applyPolicies(p.projectId, runId);
    // PostgreSQL: both read the same candidates before either writes; only one UPDATE finds the case
    // unquarantined. SQLite serves one server per file (its driver blocks the process while it waits
    // for the file's lock, so two in one process would wait on each other): one after the other.
    if (testDbKind() === 'postgres') await Promise.all([apply(t), apply(second)]);
    else for (const s of [t, second]) await apply(s);
    for (const c of ['E', 'G']) expect((await events(p, last.ids[c])).map((e) => e.action)).toEqual(['quarantined']);
  });
});
