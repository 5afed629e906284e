import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, testDbKind, type TestServer } from '@testreport/server/testing';
import type { TestReportClient } from '@testreport/client';
import { clientFor } from './realServer.js';

/**
 * A batch of a CI build's run also records the shards' activity (for the inactivity timeout). That
 * write runs after the batch commits, outside the Idempotency-Key's transaction the SDK's request
 * opens: when it fails, the batch is still stored and answered 201. On PostgreSQL a failed
 * statement inside the transaction used to abort it, so the batch was lost with a 500.
 */
let t: TestServer;
let sdk: TestReportClient;
beforeAll(async () => {
  t = await startTestServer({ backgroundJobs: false });
  // No retries: a 500 must show as the failure it is, not be retried into a replay.
  sdk = clientFor(t, t.apiKey, { maxRetries: 0 });
});
afterAll(async () => {
  await t?.close();
});

/** Every update of a shard's row fails, as a deadlock or lost connection would. */
async function breakShardUpdates() {
  const db = t.server.services.deps.db;
  if (testDbKind() === 'postgres') {
    await sql`create function refuse_shard_update() returns trigger language plpgsql as $$ begin raise exception 'shard rows are locked'; end $$`.execute(db);
    await sql`create trigger refuse_shard_update before update on run_shards for each row execute function refuse_shard_update()`.execute(db);
  } else {
    await sql`create trigger refuse_shard_update before update on run_shards begin select raise(abort, 'shard rows are locked'); end`.execute(db);
  }
}

describe('results of a CI build when recording shard activity fails', () => {
  it('stores the batch and answers 201; the failed activity write is only logged', async () => {
    const run = await sdk.runs.create({ projectId: t.projectId, status: 'running', ciBuildId: `build-${Date.now()}`, shardCurrent: 1, shardTotal: 2 });
    await breakShardUpdates();
    const tests = ['one', 'two', 'three'].map((title) => ({ runId: run.id, projectId: t.projectId, title, fullTitle: `suite > ${title}`, status: 'passed' as const, duration: 5 }));
    const stored = await sdk.tests.createBatch(tests, { idempotencyKey: 'batch-1' });
    expect(stored.data).toHaveLength(3);
    const listed = await sdk.tests.list({ projectId: t.projectId, runId: run.id });
    expect(listed.data.map((r) => r.title).sort()).toEqual(['one', 'three', 'two']);
    // The replay of the same key answers the stored response: the key's row committed with the batch.
    const again = await t.api('POST', '/tests/batch', { auth: t.apiKey, body: { tests }, headers: { 'Idempotency-Key': 'batch-1' } });
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
  });
});
