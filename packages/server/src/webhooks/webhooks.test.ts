import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Run } from '@testreport/contract';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { insertRun } from '../testing/artifacts.js';
import { startTestServer, type TestServer } from '../testing/harness.js';
import { startReceiver, type Receiver } from '../testing/receiver.js';

const SECRET = 'whsec_super-secret-value-123';
const BASE = 1000;

/** What a receiver does (docs/artifacts-webhooks.md): HMAC the raw body, compare in constant time. */
function verifySignature(rawBody: string, header: string | undefined, secret: string) {
  if (!header) return false;
  const expected = Buffer.from(createHmac('sha256', secret).update(rawBody).digest('hex'));
  const got = Buffer.from(header);
  return got.length === expected.length && timingSafeEqual(got, expected);
}

async function finishedRun(t: TestServer, over: Partial<Run> = {}): Promise<Run> {
  const row = await insertRun(t);
  return {
    id: row.id, projectId: t.projectId, status: 'failed', branch: 'main', commitSha: 'abc1234', commitMessage: 'Fix things', commitAuthor: null,
    ciProvider: null, ciBuildId: null, ciBuildUrl: 'https://ci.example.test/1', frameworkVersion: null, workers: 1, shardCurrent: null,
    shardTotal: null, browser: null, os: null, viewport: null, hostname: null, runTitle: null, tags: [], grepPatterns: [], totalTests: 10,
    passedTests: 7, failedTests: 2, skippedTests: 1, flakyTests: 1, passRate: 70, duration: 12_345, group: null, finishedShards: null, finishReason: 'status', finishCount: 1, createdAt: row.created_at, updatedAt: row.updated_at,
    ...over,
  };
}

let now = Date.parse('2026-01-01T00:00:00Z');
let t: TestServer;
let receiver: Receiver | undefined;
beforeAll(async () => {
  // The worker is driven by hand (deliverDueOnce) on an injected clock, so retry spacing is exact.
  t = await startTestServer({ backgroundJobs: false, now: () => new Date(now), webhookRetryBaseMs: BASE, webhookTimeoutMs: 500 });
});
afterAll(async () => {
  await t?.close();
});
afterEach(async () => {
  await receiver?.close();
  receiver = undefined;
  // Each test starts with no webhooks, so no earlier test's retries are due during it.
  await t.server.services.deps.db.deleteFrom('webhooks').execute();
});

const deliver = () => t.server.services.webhooks.deliverDueOnce();
const emit = (run: Run) => t.server.services.deps.events.emit('run.finished', { run });
async function createHook(body: Record<string, unknown>) {
  const res = await t.api('POST', '/webhooks', { auth: t.apiKey, body: { projectId: t.projectId, events: ['run.completed', 'run.failed'], ...body } });
  expect(res.status).toBe(201);
  return res.body;
}
const deliveriesOf = async (hookId: string) => (await t.api('GET', `/webhooks/${hookId}/deliveries`, { auth: t.apiKey })).body;

describe('webhook CRUD', () => {
  it('creates, reads, updates and deletes; the secret is write-only', async () => {
    const responses: unknown[] = [];
    const created = await createHook({ url: 'http://127.0.0.1:9/hook', events: ['run.failed'], headers: { 'X-Team': 'qa' }, secret: SECRET });
    responses.push(created);
    expect(created).toMatchObject({ projectId: t.projectId, url: 'http://127.0.0.1:9/hook', events: ['run.failed'], headers: { 'X-Team': 'qa' }, isActive: true, hasSecret: true });
    expect(created).not.toHaveProperty('secret');

    const got = await t.api('GET', `/webhooks/${created.id}`, { auth: t.owner });
    responses.push(got.body);
    expect(got.body).toMatchObject({ id: created.id, hasSecret: true });
    const list = await t.api('GET', `/webhooks?projectId=${t.projectId}`, { auth: t.apiKey });
    responses.push(list.body);
    expect(list.body.data.map((w: { id: string }) => w.id)).toContain(created.id);

    const off = await t.api('PATCH', `/webhooks/${created.id}`, { auth: t.apiKey, body: { active: false, secret: 'another-secret-456' } });
    responses.push(off.body);
    expect(off.status).toBe(200);
    expect(off.body).toMatchObject({ isActive: false, hasSecret: true });
    expect(off.body.updatedAt).toBeDefined();
    const both = await t.api('PATCH', `/webhooks/${created.id}`, { auth: t.apiKey, body: { active: false, isActive: true } });
    expect(both.body.isActive).toBe(true); // isActive wins when both are sent
    const noSecret = await t.api('PATCH', `/webhooks/${created.id}`, { auth: t.apiKey, body: { secret: null, events: ['run.completed'] } });
    responses.push(noSecret.body);
    expect(noSecret.body).toMatchObject({ hasSecret: false, events: ['run.completed'] });
    const inactive = await createHook({ url: 'http://127.0.0.1:9/x', isActive: false, active: true });
    expect(inactive.isActive).toBe(false);

    for (const body of responses) {
      expect(JSON.stringify(body)).not.toContain(SECRET);
      expect(JSON.stringify(body)).not.toContain('another-secret-456');
    }

    const del = await t.api('DELETE', `/webhooks/${created.id}`, { auth: t.apiKey });
    expect(del.body).toEqual({ success: true, message: 'Webhook deleted' });
    expect((await t.api('GET', `/webhooks/${created.id}`, { auth: t.apiKey })).status).toBe(404);
  });

  it('validates events and headers', async () => {
    const bad = async (body: Record<string, unknown>) =>
      (await t.api('POST', '/webhooks', { auth: t.apiKey, body: { projectId: t.projectId, url: 'http://127.0.0.1:9/', events: ['run.completed'], ...body } })).body.error.details;
    expect(await bad({ events: ['run.started'] })).toMatchObject({ reason: 'invalid_value' });
    expect(await bad({ events: [] })).toMatchObject({ field: 'events' });
    expect(await bad({ headers: { Host: 'evil' } })).toMatchObject({ reason: 'invalid_value' });
    expect(await bad({ headers: { 'X-A': 'line\r\nInjected: 1' } })).toMatchObject({ field: 'headers.X-A' });
    expect(await bad({ url: undefined })).toMatchObject({ field: 'url', reason: 'required' });
  });

  it('keeps webhooks to admins, owners and the project key; other tenants see nothing', async () => {
    const hook = await createHook({ url: 'http://127.0.0.1:9/a' });
    const member = await t.createUser({ teamId: t.teamId, role: 'member' });
    expect((await t.api('GET', `/webhooks?projectId=${t.projectId}`, { auth: member })).status).toBe(403);
    expect((await t.api('POST', '/webhooks', { auth: member, body: { projectId: t.projectId, url: 'http://127.0.0.1:9/', events: ['run.completed'] } })).status).toBe(403);
    const admin = await t.createUser({ teamId: t.teamId, role: 'admin' });
    expect((await t.api('GET', `/webhooks/${hook.id}`, { auth: admin })).status).toBe(200);
    const other = await t.createOtherTenant();
    expect((await t.api('GET', `/webhooks/${hook.id}`, { auth: other.apiKey })).status).toBe(404);
    expect((await t.api('PATCH', `/webhooks/${hook.id}`, { auth: other.owner, body: { isActive: false } })).status).toBe(404);
    expect((await t.api('DELETE', `/webhooks/${hook.id}`, { auth: other.owner })).status).toBe(404);
    expect((await t.api('GET', `/webhooks?projectId=${t.projectId}`, { auth: other.apiKey })).status).toBe(403);
  });
});

describe('SSRF guard on create and update', () => {
  let guarded: TestServer;
  beforeAll(async () => {
    guarded = await startTestServer({ webhookAllowPrivate: false, backgroundJobs: false });
  });
  afterAll(async () => {
    await guarded?.close();
  });

  const refused = [
    'http://93.184.216.34/', 'https://127.0.0.1/', 'https://localhost/', 'https://localhost./x', 'https://app.localhost/',
    'https://169.254.169.254/latest/meta-data/', 'https://10.0.0.5/', 'https://172.16.3.4/', 'https://192.168.1.10/', 'https://100.64.0.1/',
    'https://0.0.0.0/', 'https://[::1]/', 'https://[::ffff:127.0.0.1]/', 'https://[::ffff:a9fe:a9fe]/', 'https://[fd00::1]/',
    'https://[fe80::1]/', 'https://[ff02::1]/', 'https://0x7f.1/', 'https://2130706433/', 'https://0177.0.0.1/', 'https://127.1/',
    'https://[64:ff9b::7f00:1]/', 'https://[2002:7f00:1::1]/', 'https://224.0.0.1/', 'https://255.255.255.255/', 'https://198.18.0.1/',
    'https://metadata.google.internal/', 'https://printer.local/', 'ftp://93.184.216.34/',
  ];
  it(`refuses ${refused.length} internal or non-https URL forms with 400 on url`, async () => {
    expect(refused.length).toBeGreaterThanOrEqual(20);
    for (const url of refused) {
      const res = await guarded.api('POST', '/webhooks', { auth: guarded.apiKey, body: { projectId: guarded.projectId, url, events: ['run.completed'] } });
      expect({ url, status: res.status, details: res.body.error?.details }).toMatchObject({ url, status: 400, details: { field: 'url', reason: 'invalid_value' } });
      expect(res.body.error.message).toMatch(/https|public|local|valid/);
    }
    const rows = await guarded.server.services.deps.db.selectFrom('webhooks').select('id').execute();
    expect(rows).toHaveLength(0);
  });

  it('accepts a public literal address (no traffic is sent) and refuses switching it to an internal one', async () => {
    const ok = await guarded.api('POST', '/webhooks', { auth: guarded.apiKey, body: { projectId: guarded.projectId, url: 'https://93.184.216.34/hook', events: ['run.completed'] } });
    expect(ok.status).toBe(201);
    const moved = await guarded.api('PATCH', `/webhooks/${ok.body.id}`, { auth: guarded.apiKey, body: { url: 'https://[::ffff:169.254.169.254]/' } });
    expect(moved.status).toBe(400);
    expect(moved.body.error.details).toMatchObject({ field: 'url', reason: 'invalid_value' });
  });

  it('checks again at send time: a loopback URL stored while private targets were allowed is not contacted', async () => {
    receiver = await startReceiver();
    // Written directly, as if the guard had been off when it was saved.
    const db = guarded.server.services.deps.db;
    const id = (await guarded.api('POST', '/webhooks', { auth: guarded.apiKey, body: { projectId: guarded.projectId, url: 'https://93.184.216.34/x', events: ['run.completed'] } })).body.id;
    await db.updateTable('webhooks').set({ url: receiver.url, is_active: 1 }).where('id', '=', id).execute();
    await db.updateTable('webhooks').set({ is_active: 0 }).where('id', '!=', id).execute();
    const test = await guarded.api('POST', `/webhooks/${id}/test`, { auth: guarded.apiKey });
    expect(test.status).toBe(201);
    await guarded.server.services.webhooks.deliverDueOnce();
    expect(receiver.received).toHaveLength(0);
    const log = (await guarded.api('GET', `/webhooks/${id}/deliveries`, { auth: guarded.apiKey })).body;
    expect(log.data[0].attempts[0].error).toMatch(/https/);
  });
});

describe('delivery', () => {
  it('signs the body, sends standard and custom headers, and the payload of docs/decisions.md §8', async () => {
    receiver = await startReceiver();
    const hook = await createHook({ url: receiver.url, headers: { 'X-Team': 'qa', Authorization: 'Bearer abc' }, secret: SECRET });
    const run = await finishedRun(t);
    await emit(run);
    expect(await deliver()).toBe(2); // run.completed and run.failed (2 failures)
    expect(receiver.received).toHaveLength(2);
    const events = receiver.received.map((r) => r.headers['x-testreport-event']).sort();
    expect(events).toEqual(['run.completed', 'run.failed']);
    for (const r of receiver.received) {
      expect(verifySignature(r.body, r.headers['x-testreport-signature'] as string, SECRET)).toBe(true);
      expect(verifySignature(r.body, r.headers['x-testreport-signature'] as string, 'wrong-secret')).toBe(false);
      expect(r.headers).toMatchObject({ 'content-type': 'application/json', 'user-agent': 'testreport-webhooks/1', 'x-team': 'qa', authorization: 'Bearer abc' });
      const payload = JSON.parse(r.body);
      expect(r.headers['x-testreport-delivery']).toBe(payload.id);
      expect(payload).toEqual({
        id: payload.id, event: r.headers['x-testreport-event'], createdAt: new Date(now).toISOString(),
        data: { run: { id: run.id, url: `${t.url}/runs/${run.id}`, projectId: t.projectId, status: 'failed', branch: 'main', commitSha: 'abc1234', commitMessage: 'Fix things', ciBuildUrl: 'https://ci.example.test/1', totalTests: 10, passedTests: 7, failedTests: 2, skippedTests: 1, flakyTests: 1, passRate: 70, duration: 12_345 } },
      });
    }
    const log = await deliveriesOf(hook.id);
    expect(log.total).toBe(2);
    expect(log.data.every((d: { status: string; attempts: unknown[] }) => d.status === 'succeeded' && d.attempts.length === 1)).toBe(true);
    expect(log.data[0].attempts[0]).toMatchObject({ attempt: 1, statusCode: 200, error: null });
    expect(JSON.stringify(log)).not.toContain(SECRET);
    await t.api('DELETE', `/webhooks/${hook.id}`, { auth: t.apiKey });
  });

  it('sends no signature header without a secret, and only subscribed events of active webhooks', async () => {
    receiver = await startReceiver();
    const completedOnly = await createHook({ url: `${receiver.url}?completed`, events: ['run.completed'] });
    const failedOnly = await createHook({ url: `${receiver.url}?failed`, events: ['run.failed'] });
    const inactive = await createHook({ url: `${receiver.url}?inactive`, active: false });
    await emit(await finishedRun(t, { status: 'passed', failedTests: 0, passedTests: 10 }));
    await deliver();
    expect(receiver.received.map((r) => r.path)).toEqual(['/hook?completed']);
    expect(receiver.received[0].headers).not.toHaveProperty('x-testreport-signature');
    expect((await deliveriesOf(failedOnly.id)).total).toBe(0);
    expect((await deliveriesOf(inactive.id)).total).toBe(0);
    for (const h of [completedOnly, failedOnly, inactive]) await t.api('DELETE', `/webhooks/${h.id}`, { auth: t.apiKey });
  });

  it('retries 3 times after base, 4×base and 16×base (±10%) with the same delivery id, then gives up', async () => {
    receiver = await startReceiver((_n, _r, res) => {
      res.statusCode = 500;
      res.end('down');
    });
    const hook = await createHook({ url: receiver.url, events: ['run.completed'] });
    await emit(await finishedRun(t));
    let expectedAttempts = 0;
    for (const factor of [1, 4, 16]) {
      await deliver();
      expectedAttempts++;
      expect(receiver.received).toHaveLength(expectedAttempts);
      const [d] = (await deliveriesOf(hook.id)).data;
      expect(d.status).toBe('pending');
      const gap = Date.parse(d.nextAttemptAt) - now;
      expect(gap).toBeGreaterThanOrEqual(0.9 * factor * BASE);
      expect(gap).toBeLessThanOrEqual(1.1 * factor * BASE);
      now += gap - 1; // not due yet: nothing is sent early
      expect(await deliver()).toBe(0);
      now += 1;
    }
    await deliver();
    expect(receiver.received).toHaveLength(4);
    const [d] = (await deliveriesOf(hook.id)).data;
    expect(d).toMatchObject({ status: 'failed', nextAttemptAt: null });
    expect(d.attempts.map((a: { attempt: number; statusCode: number }) => [a.attempt, a.statusCode])).toEqual([[1, 500], [2, 500], [3, 500], [4, 500]]);
    expect(new Set(receiver.received.map((r) => r.headers['x-testreport-delivery']))).toEqual(new Set([d.id]));
    now += 60 * 60 * 1000;
    expect(await deliver()).toBe(0);
    await t.api('DELETE', `/webhooks/${hook.id}`, { auth: t.apiKey });
  });

  it('honours Retry-After, treats redirects and time-outs as failures, and succeeds on a later attempt', async () => {
    receiver = await startReceiver((n, _r, res) => {
      if (n === 1) {
        res.writeHead(503, { 'Retry-After': '120' }).end();
      } else if (n === 2) {
        res.writeHead(302, { Location: `http://127.0.0.1:${receiver!.port}/elsewhere` }).end();
      } else if (n === 3) {
        setTimeout(() => res.end('late'), 1500); // beyond webhookTimeoutMs
      } else res.end('ok');
    });
    const hook = await createHook({ url: receiver.url, events: ['run.completed'] });
    await emit(await finishedRun(t));
    await deliver();
    let [d] = (await deliveriesOf(hook.id)).data;
    expect(Date.parse(d.nextAttemptAt) - now).toBeGreaterThanOrEqual(120_000);
    now = Date.parse(d.nextAttemptAt);
    await deliver();
    [d] = (await deliveriesOf(hook.id)).data;
    expect(d.attempts[1]).toMatchObject({ statusCode: 302, error: expect.stringMatching(/redirect/) });
    expect(receiver.received.map((r) => r.path)).not.toContain('/elsewhere');
    now = Date.parse(d.nextAttemptAt);
    await deliver();
    [d] = (await deliveriesOf(hook.id)).data;
    expect(d.attempts[2]).toMatchObject({ statusCode: null, error: expect.stringMatching(/timed out/) });
    now = Date.parse(d.nextAttemptAt);
    await deliver();
    [d] = (await deliveriesOf(hook.id)).data;
    expect(d.status).toBe('succeeded');
    expect(d.attempts).toHaveLength(4);
    await t.api('DELETE', `/webhooks/${hook.id}`, { auth: t.apiKey });
  });

  it('does not send deliveries queued before the webhook was deactivated', async () => {
    receiver = await startReceiver();
    const hook = await createHook({ url: receiver.url, events: ['run.completed'] });
    await emit(await finishedRun(t));
    await t.api('PATCH', `/webhooks/${hook.id}`, { auth: t.apiKey, body: { isActive: false } });
    await deliver();
    expect(receiver.received).toHaveLength(0);
    const [d] = (await deliveriesOf(hook.id)).data;
    expect(d).toMatchObject({ status: 'failed', attempts: [{ attempt: 1, statusCode: null, error: 'webhook is inactive' }] });
  });

  it('never sends one delivery twice when workers race', async () => {
    receiver = await startReceiver();
    const hook = await createHook({ url: receiver.url, events: ['run.completed'] });
    await emit(await finishedRun(t));
    const results = await Promise.all([deliver(), deliver(), t.server.services.webhooks.deliverDueOnce()]);
    expect(results.reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(1);
    expect(receiver.received).toHaveLength(1);
    await t.api('DELETE', `/webhooks/${hook.id}`, { auth: t.apiKey });
  });

  it('POST /webhooks/:id/test queues a ping and returns it', async () => {
    receiver = await startReceiver();
    const hook = await createHook({ url: receiver.url, secret: SECRET });
    const res = await t.api('POST', `/webhooks/${hook.id}/test`, { auth: t.apiKey });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ webhookId: hook.id, event: 'ping', status: 'pending', attempts: [] });
    await deliver();
    expect(receiver.received).toHaveLength(1);
    const ping = receiver.received[0];
    expect(ping.headers['x-testreport-event']).toBe('ping');
    expect(JSON.parse(ping.body)).toMatchObject({ id: res.body.id, event: 'ping', data: { webhookId: hook.id } });
    expect(verifySignature(ping.body, ping.headers['x-testreport-signature'] as string, SECRET)).toBe(true);
    const log = await deliveriesOf(hook.id);
    expect(log.data[0]).toMatchObject({ id: res.body.id, status: 'succeeded' });
    await t.api('DELETE', `/webhooks/${hook.id}`, { auth: t.apiKey });
  });
});

describe('durability', () => {
  it('a restart in the middle of retries still delivers (the worker resumes the outbox)', async () => {
    receiver = await startReceiver((n, _r, res) => {
      res.statusCode = n === 1 ? 500 : 200;
      res.end();
    });
    const first = await startTestServer({ backgroundJobs: false, webhookRetryBaseMs: 20 });
    const hook = (await first.api('POST', '/webhooks', { auth: first.apiKey, body: { projectId: first.projectId, url: receiver.url, events: ['run.completed'], secret: SECRET } })).body;
    await first.server.services.deps.events.emit('run.finished', { run: await finishedRun(first) });
    await first.server.services.webhooks.deliverDueOnce();
    expect(receiver.received).toHaveLength(1);
    await first.server.close(); // the server stops with the retry still pending

    // The same data dir and database, whichever database the tests run on.
    const second = await startTestServer({ dataDir: first.dataDir, databaseUrl: first.server.config.databaseUrl, webhookRetryBaseMs: 20 }); // worker on
    try {
      await receiver.waitFor(2);
      const ids = receiver.received.map((r) => r.headers['x-testreport-delivery']);
      expect(ids[0]).toBe(ids[1]);
      expect(verifySignature(receiver.received[1].body, receiver.received[1].headers['x-testreport-signature'] as string, SECRET)).toBe(true);
      let log = (await second.api('GET', `/webhooks/${hook.id}/deliveries`, { auth: first.apiKey })).body;
      while (log.data[0].status === 'pending') {
        await new Promise((r) => setTimeout(r, 20));
        log = (await second.api('GET', `/webhooks/${hook.id}/deliveries`, { auth: first.apiKey })).body;
      }
      expect(log.data[0]).toMatchObject({ status: 'succeeded', attempts: [{ attempt: 1, statusCode: 500 }, { attempt: 2, statusCode: 200 }] });
    } finally {
      await second.close();
      await first.close(); // its server is already stopped: this removes its data dir and database
    }
  });

  it('delivers a run finished through POST /runs and PATCH /runs/:id (background worker)', async () => {
    receiver = await startReceiver();
    const live = await startTestServer({ webhookRetryBaseMs: 20 });
    try {
      await live.api('POST', '/webhooks', { auth: live.apiKey, body: { projectId: live.projectId, url: receiver.url, events: ['run.completed', 'run.failed'], secret: SECRET } });
      const run = await live.api('POST', '/runs', { auth: live.apiKey, body: { projectId: live.projectId, status: 'running', branch: 'feature/x', commitSha: 'def5678' } });
      expect(run.status).toBe(201);
      const done = await live.api('PATCH', `/runs/${run.body.id}`, { auth: live.apiKey, body: { status: 'failed', totalTests: 3, passedTests: 2, failedTests: 1, skippedTests: 0, flakyTests: 0, duration: 900 } });
      expect(done.status).toBe(200);
      await receiver.waitFor(2);
      const byEvent = Object.fromEntries(receiver.received.map((r) => [r.headers['x-testreport-event'], JSON.parse(r.body)]));
      expect(Object.keys(byEvent).sort()).toEqual(['run.completed', 'run.failed']);
      expect(byEvent['run.failed'].data.run).toMatchObject({ id: run.body.id, status: 'failed', branch: 'feature/x', commitSha: 'def5678', failedTests: 1, passedTests: 2, duration: 900 });
      for (const r of receiver.received) expect(verifySignature(r.body, r.headers['x-testreport-signature'] as string, SECRET)).toBe(true);
    } finally {
      await live.close();
    }
  });
});
