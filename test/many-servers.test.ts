import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createRun, createTestPostgresDatabase, openDatabase, runExclusive, startReceiver, startTestServer, testBody,
  type OpenedDatabase, type Receiver, type TestDatabase, type TestServer,
} from '@testreport/server/testing';

/**
 * Two real servers on one PostgreSQL database, as behind a load balancer (docs/deploy.md): both
 * run their background workers, share one secret, and are driven alternately over HTTP.
 */
let pg: TestDatabase;
let a: TestServer;
let b: TestServer;
let receiver: Receiver;
let inspect: OpenedDatabase;
let inspectClosed = false;
let clock = Date.now();
const secret = 'shared-secret-of-the-fleet-0123456789';

beforeAll(async () => {
  pg = await createTestPostgresDatabase({ empty: true });
  receiver = await startReceiver();
  // Both at once: the migrator's advisory lock must make exactly one of them migrate.
  const common = { databaseUrl: pg.url, secret, now: () => new Date(clock), webhookRetryBaseMs: 40 };
  [a, b] = await Promise.all([startTestServer(common), startTestServer({ ...common, rateLimits: true })]);
  inspect = openDatabase(pg.url);
});
afterAll(async () => {
  await Promise.all([a?.close(), b?.close()]);
  if (!inspectClosed) await inspect?.close();
  await receiver?.close();
  await pg?.drop();
});

/** Server a or b by turn, so consecutive requests land on different servers. */
const either = (i: number) => (i % 2 === 0 ? a : b);

describe('many servers on one PostgreSQL database', () => {
  it('migrates once although both servers started together', async () => {
    const rows = await inspect.db
      .selectFrom('kysely_migration' as never)
      .select('name' as never)
      .execute();
    const names = rows.map((r) => (r as { name: string }).name);
    expect(names).toContain('001_initial');
    expect(new Set(names).size).toBe(names.length);
  });

  it('accepts a session and an API key made on one server on the other', async () => {
    const viaB = await b.api('GET', '/me', { auth: a.owner });
    expect(viaB.status).toBe(200);
    expect(viaB.body).toMatchObject({ type: 'user', user: { email: a.owner.email } });
    expect((await b.api('GET', '/me', { auth: a.apiKey })).body).toMatchObject({ type: 'apiKey', project: { id: a.projectId } });
  });

  it('stores concurrent batches through both servers once each, replays a retried key on the other server', async () => {
    const run = await createRun(a);
    const batches = Array.from({ length: 12 }, (_, i) =>
      // Batches share case titles, so both servers upsert the same test cases at the same time.
      Array.from({ length: 40 }, (_, j) => testBody(run.id, a.projectId, { fullTitle: `suite > case ${j}`, title: `case ${j} of batch ${i}`, status: j % 5 ? 'passed' : 'failed' })),
    );
    const first = await Promise.all(
      batches.map((tests, i) => either(i).api('POST', '/tests/batch', { auth: a.apiKey, body: { tests }, headers: { 'Idempotency-Key': `batch-${run.id}-${i}` } })),
    );
    expect(first.map((r) => r.status)).toEqual(batches.map(() => 201));
    // The client retries every batch, each time through the other server.
    const retried = await Promise.all(
      batches.map((tests, i) => either(i + 1).api('POST', '/tests/batch', { auth: a.apiKey, body: { tests }, headers: { 'Idempotency-Key': `batch-${run.id}-${i}` } })),
    );
    retried.forEach((r, i) => {
      expect(r.status).toBe(201);
      expect(r.headers.get('idempotent-replayed')).toBe('true');
      expect(r.body).toEqual(first[i].body);
    });
    const listed = await b.api('GET', `/tests?projectId=${a.projectId}&runId=${run.id}&limit=1`, { auth: a.apiKey });
    expect(listed.body.total).toBe(12 * 40);
    const ids = new Set(first.flatMap((r) => r.body.data.map((t: { id: string }) => t.id)));
    expect(ids.size).toBe(12 * 40);
    const cases = await inspect.db
      .selectFrom('test_cases')
      .select(['id', 'latest_test_id', (eb) => eb.selectFrom('tests').select((e) => e.fn.max('tests.id').as('m')).whereRef('tests.case_id', '=', 'test_cases.id').as('newest')])
      .where('project_id', '=', a.projectId)
      .where('full_title', 'like', 'suite > case %')
      .execute();
    expect(cases).toHaveLength(40);
    // Whichever server committed last, each case points at its newest result.
    for (const c of cases) expect(c.latest_test_id).toBe(c.newest);
  });

  it('honours one Idempotency-Key sent to both servers at the same moment: stored once', async () => {
    const run = await createRun(a);
    const tests = [testBody(run.id, a.projectId, { fullTitle: 'race > once' })];
    const key = `race-${run.id}`;
    const both = await Promise.all([a, b].map((s) => s.api('POST', '/tests/batch', { auth: a.apiKey, body: { tests }, headers: { 'Idempotency-Key': key } })));
    // One stores it; the other replays it, or (while the first is still running) answers 409 to retry.
    expect(both.filter((r) => r.status === 201 && r.headers.get('idempotent-replayed') !== 'true')).toHaveLength(1);
    for (const r of both) expect([201, 409]).toContain(r.status);
    const again = await b.api('POST', '/tests/batch', { auth: a.apiKey, body: { tests }, headers: { 'Idempotency-Key': key } });
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect((await a.api('GET', `/tests?projectId=${a.projectId}&runId=${run.id}`, { auth: a.apiKey })).body.total).toBe(1);
  });

  it('sends each webhook delivery once although both servers run delivery workers', async () => {
    const hook = await a.api('POST', '/webhooks', { auth: a.apiKey, body: { projectId: a.projectId, url: receiver.url, events: ['run.completed'] } });
    expect(hook.status).toBe(201);
    const runs = await Promise.all(Array.from({ length: 10 }, () => createRun(a)));
    await Promise.all(runs.map((r, i) => either(i).api('PATCH', `/runs/${r.id}`, { auth: a.apiKey, body: { status: 'passed' } })));
    await receiver.waitFor(runs.length);
    // Every delivery is recorded as sent once; a duplicate send would have happened before that.
    for (;;) {
      const log = await a.api('GET', `/webhooks/${hook.body.id}/deliveries?limit=100`, { auth: a.apiKey });
      if (log.body.data.length === runs.length && log.body.data.every((d: { status: string }) => d.status === 'succeeded')) {
        expect(log.body.data.every((d: { attempts: unknown[] }) => d.attempts.length === 1)).toBe(true);
        break;
      }
      await new Promise((r) => setTimeout(r, 50));
    }
    const deliveryIds = receiver.received.map((r) => r.headers['x-testreport-delivery']);
    expect(deliveryIds).toHaveLength(runs.length);
    expect(new Set(deliveryIds).size).toBe(runs.length);
    const runIds = receiver.received.map((r) => JSON.parse(r.body).data.run.id).sort();
    expect(runIds).toEqual(runs.map((r) => r.id).sort());
  });

  it('counts the rate limit across both servers', async () => {
    // b and a third server limit (a does not); alternating between them, each sees only every
    // other request, so the limit holds only if the count lives in the database.
    const key = (await b.server.services.apiKeys.mint({ projectId: b.projectId, name: 'fleet' })).key;
    const limited = await startTestServer({ databaseUrl: pg.url, secret, now: () => new Date(clock), rateLimits: true, backgroundJobs: false });
    try {
      for (let i = 0; i < 30; i++) {
        const res = await (i % 2 ? b : limited).api('POST', '/runs', { auth: key, body: { projectId: b.projectId, status: 'running' } });
        expect(res.status).toBe(201);
        expect(res.headers.get('ratelimit-remaining')).toBe(String(29 - i));
      }
      const over = await Promise.all([b, limited].map((s) => s.api('POST', '/runs', { auth: key, body: { projectId: b.projectId, status: 'running' } })));
      expect(over.map((r) => r.status)).toEqual([429, 429]);
      clock += 61_000;
      expect((await limited.api('POST', '/runs', { auth: key, body: { projectId: b.projectId, status: 'running' } })).status).toBe(201);
    } finally {
      await limited.close();
    }
  });

  it('sweeps retention on one server at a time', async () => {
    const old = await createRun(a);
    clock += 40 * 86_400_000; // past the default 30-day window
    // While another server holds the sweep, this one skips its turn and deletes nothing.
    await runExclusive(inspect.db, 'retention', async () => {
      expect(await b.server.services.retention.sweepOnce()).toEqual({ deletedRuns: 0 });
      expect((await a.api('GET', `/runs/${old.id}`, { auth: a.apiKey })).status).toBe(200);
    });
    const countRuns = async () => Number((await inspect.db.selectFrom('runs').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n);
    const runsBefore = await countRuns(); // every run made above, all now past the window
    expect(runsBefore).toBeGreaterThan(40);
    const [x, y] = await Promise.all([a.server.services.retention.sweepOnce(), b.server.services.retention.sweepOnce()]);
    expect(x.deletedRuns + y.deletedRuns).toBe(runsBefore);
    expect(await countRuns()).toBe(0);
    expect((await a.api('GET', `/runs/${old.id}`, { auth: a.apiKey })).status).toBe(404);
  });

  it('joins the shards of one CI build through both servers into one run, and times it out once', async () => {
    const hook = await a.api('POST', '/webhooks', { auth: a.apiKey, body: { projectId: a.projectId, url: receiver.url, events: ['run.completed'] } });
    const ciBuildId = `fleet-${Date.now()}`;
    const join = (shard: number, k: number) =>
      either(k).api('POST', '/runs', { auth: a.apiKey, body: { projectId: a.projectId, status: 'running', ciBuildId, shardCurrent: shard, shardTotal: 3 } });
    const joined = await Promise.all([1, 2, 3, 1, 2, 3].map((shard, k) => join(shard, k)));
    expect(new Set(joined.map((j) => j.body.id)).size).toBe(1);
    expect(joined.map((j) => j.status).sort()).toEqual([200, 200, 200, 200, 200, 201]);
    const runId = joined[0].body.id;
    await Promise.all([1, 2].map((shard, k) => either(k).api('PATCH', `/runs/${runId}`, { auth: a.apiKey, body: { status: 'passed', shardCurrent: shard } })));
    expect((await b.api('GET', `/runs/${runId}`, { auth: a.apiKey })).body).toMatchObject({ status: 'running', finishedShards: 2 });

    clock += 31 * 60_000; // past the default 30-minute shard timeout
    await Promise.all([a.server.services.shardTimeouts.checkOnce(), b.server.services.shardTimeouts.checkOnce()]);
    expect((await a.api('GET', `/runs/${runId}`, { auth: a.apiKey })).body).toMatchObject({ status: 'passed', finishReason: 'timeout', finishedShards: 2, finishCount: 1 });
    const queued = await inspect.db.selectFrom('webhook_deliveries').select('payload').where('webhook_id', '=', hook.body.id).execute();
    expect(queued.filter((d) => JSON.parse(d.payload).data.run.id === runId)).toHaveLength(1);
  });

  it('reports on /healthz whether the database is reachable', async () => {
    for (const s of [a, b]) {
      const res = await fetch(`${s.url}/healthz`);
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ status: 'ok', database: 'ok', storage: 'ok', disk: 'ok' });
    }
    inspectClosed = true;
    await inspect.close();
    await pg.drop(); // the database goes away under the running servers
    for (const s of [a, b]) {
      const res = await fetch(`${s.url}/healthz`);
      expect(res.status).toBe(503);
      expect(await res.json()).toEqual({ status: 'unavailable', database: 'unreachable', storage: 'ok', disk: 'ok' });
    }
  });
});
