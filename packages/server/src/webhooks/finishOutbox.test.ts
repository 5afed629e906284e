import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../testing/harness.js';

/**
 * Issue 15.5: the finished run and its queued deliveries are one write. A failure between them
 * (here: the outbox table moved away for a moment, so the insert fails on any database, standing in
 * for a crash) must leave the run
 * unfinished, so the client's retry finishes it and queues the deliveries (docs/decisions.md §8).
 */
let t: TestServer;
beforeAll(async () => {
  t = await startTestServer({ backgroundJobs: false });
});
afterAll(async () => {
  await t?.close();
});

describe('finishing a run queues its webhook deliveries in the same transaction', () => {
  it('rolls the finish back when the deliveries cannot be queued, and the retried PATCH queues them', async () => {
    const db = t.server.services.deps.db;
    const hook = await t.api('POST', '/webhooks', { auth: t.apiKey, body: { projectId: t.projectId, url: 'http://127.0.0.1:9/hook', events: ['run.completed'] } });
    expect(hook.status).toBe(201);
    const run = await t.api('POST', '/runs', { auth: t.apiKey, body: { projectId: t.projectId, status: 'running' } });
    expect(run.status).toBe(201);

    await sql`alter table webhook_deliveries rename to webhook_deliveries_away`.execute(db);
    const failed = await t.api('PATCH', `/runs/${run.body.id}`, { auth: t.apiKey, body: { status: 'passed' } }).finally(() =>
      sql`alter table webhook_deliveries_away rename to webhook_deliveries`.execute(db),
    );
    expect(failed.status).toBe(500);
    expect((await t.api('GET', `/runs/${run.body.id}`, { auth: t.apiKey })).body.status).toBe('running');

    const retried = await t.api('PATCH', `/runs/${run.body.id}`, { auth: t.apiKey, body: { status: 'passed' } });
    expect(retried.status).toBe(200);
    const deliveries = await t.api('GET', `/webhooks/${hook.body.id}/deliveries`, { auth: t.apiKey });
    expect(deliveries.body.data.map((d: { event: string }) => d.event)).toEqual(['run.completed']);
  });
});
