/**
 * Webhook signing secrets are stored sealed under a key derived from the server secret (decisions
 * §12): the database never holds one in clear, deliveries are still signed with it, secrets stored
 * in clear by an older version are sealed by migration 010, and a rotated server secret re-seals them.
 */
import { createHmac } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestPostgresDatabase, testDbKind, type TestDatabase } from '../testing/database.js';
import { startTestServer, type TestServer } from '../testing/harness.js';
import { startReceiver, type Receiver } from '../testing/receiver.js';

const SIGNING = 'whsec-very-secret-value';
let dir: string;
let pg: TestDatabase | null = null;
let databaseUrl: string;
let receiver: Receiver;
/** The key of the project the webhook belongs to: every restart's harness seeds a tenant of its own. */
let apiKey: string;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'testreport-secrets-'));
  pg = testDbKind() === 'postgres' ? await createTestPostgresDatabase() : null;
  databaseUrl = pg ? pg.url : join(dir, 'testreport.db');
  receiver = await startReceiver();
});
afterAll(async () => {
  await receiver?.close();
  await pg?.drop();
  rmSync(dir, { recursive: true, force: true });
});

/** A server on the one database of this file, with the given server secret(s). */
const serverWith = (secret: string, previousSecrets: string[] = []) => startTestServer({ databaseUrl, secret, previousSecrets, backgroundJobs: false });
const storedSecret = async (t: TestServer, id: string) =>
  (await t.server.services.deps.db.selectFrom('webhooks').select('secret').where('id', '=', id).executeTakeFirstOrThrow()).secret;

/** Pings the webhook and answers whether the delivery carried the signature of SIGNING. */
async function signsWithSecret(t: TestServer, id: string): Promise<boolean> {
  const before = receiver.received.length;
  const ping = await t.api('POST', `/webhooks/${id}/test`, { auth: apiKey });
  expect(ping.status).toBe(201);
  await t.server.services.webhooks.deliverDueOnce();
  await receiver.waitFor(before + 1);
  const got = receiver.received.at(-1)!;
  return got.headers['x-testreport-signature'] === createHmac('sha256', SIGNING).update(got.body).digest('hex');
}

describe('webhook secrets at rest', () => {
  let hookId: string;
  let sealedUnderOne: string;

  it('stores a new secret sealed (AES-256-GCM), never in clear, and signs deliveries with it', async () => {
    const t = await serverWith('server-secret-one');
    try {
      const created = await t.api('POST', '/webhooks', { auth: t.apiKey, body: { projectId: t.projectId, url: receiver.url, events: ['run.completed'], secret: SIGNING } });
      expect(created.status).toBe(201);
      expect(created.body).toMatchObject({ hasSecret: true });
      hookId = created.body.id;
      apiKey = t.apiKey;
      const stored = (await storedSecret(t, hookId))!;
      expect(stored).toMatch(/^enc1:[0-9a-f]{8}:/);
      expect(stored).not.toContain(SIGNING);
      expect(await signsWithSecret(t, hookId)).toBe(true);
      // The same secret sealed twice gives two different values (a fresh IV each time).
      await t.api('PATCH', `/webhooks/${hookId}`, { auth: apiKey, body: { secret: SIGNING } });
      expect(await storedSecret(t, hookId)).not.toBe(stored);
    } finally {
      await t.close();
    }
  });

  it('migration 010 seals a secret an older version stored in clear', async () => {
    let t = await serverWith('server-secret-one');
    // The database as it was before 010: the secret in clear, the migration not yet run.
    const db = t.server.services.deps.db;
    await db.updateTable('webhooks').set({ secret: SIGNING }).where('id', '=', hookId).execute();
    await sql`delete from kysely_migration where name = '010_secrets_at_rest'`.execute(db);
    await t.close();
    t = await serverWith('server-secret-one');
    try {
      const stored = (await storedSecret(t, hookId))!;
      expect(stored).toMatch(/^enc1:/);
      expect(stored).not.toContain(SIGNING);
      expect(await signsWithSecret(t, hookId)).toBe(true);
      sealedUnderOne = stored;
    } finally {
      await t.close();
    }
  });

  it('after a rotation (TESTREPORT_SECRET_PREVIOUS) re-seals under the new server secret at start', async () => {
    let t = await serverWith('server-secret-two', ['server-secret-one']);
    const resealed = (await storedSecret(t, hookId))!;
    const keyId = (v: string) => v.split(':')[1];
    expect(keyId(resealed)).not.toBe(keyId(sealedUnderOne));
    expect(await signsWithSecret(t, hookId)).toBe(true);
    await t.close();
    // Once re-sealed, the old secret is no longer needed.
    t = await serverWith('server-secret-two');
    try {
      expect(await storedSecret(t, hookId)).toBe(resealed);
      expect(await signsWithSecret(t, hookId)).toBe(true);
    } finally {
      await t.close();
    }
  });
});
