import { chmodSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sha256Hex } from '../lib/crypto.js';
import { newId } from '../lib/ids.js';
import { startTestServer, type TestServer } from '../testing/harness.js';
import { createRun, testBody } from '../testing/results.js';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(async () => {
  await t?.close();
});

const idem = (key: string) => ({ 'Idempotency-Key': key });
const storedRecords = () => t.server.services.deps.db.selectFrom('idempotency_keys').selectAll().execute();

describe('Idempotency-Key crash safety (15.1)', () => {
  it('does the work for a key whose reservation was left without a response by a crashed server', async () => {
    const run = await createRun(t);
    const body = { tests: [testBody(run.id, t.projectId, { fullTitle: 'left behind' })] };
    // The state a server killed between reserving and answering left behind (status and body empty).
    const raw = JSON.stringify(body);
    const db = t.server.services.deps.db;
    const key = await db.selectFrom('api_keys').select('id').where('project_id', '=', t.projectId).orderBy('id').executeTakeFirstOrThrow();
    await db
      .insertInto('idempotency_keys')
      .values({
        id: newId(), scope: `apiKey:${key.id}`, key: 'stuck-1', method: 'POST', path: '/api/v1/tests/batch',
        request_hash: sha256Hex(`POST /api/v1/tests/batch\n${sha256Hex(Buffer.from(raw))}`), status_code: null, response_body: null, created_at: new Date().toISOString(),
      })
      .execute();

    const res = await t.api('POST', '/tests/batch', { auth: t.apiKey, body: raw, headers: idem('stuck-1') });
    expect(res.status).toBe(201);
    const again = await t.api('POST', '/tests/batch', { auth: t.apiKey, body: raw, headers: idem('stuck-1') });
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    const stored = await db.selectFrom('tests').select('id').where('run_id', '=', run.id).where('full_title', '=', 'left behind').execute();
    expect(stored).toHaveLength(1);
  });
});

describe('secrets in idempotent responses (15.2)', () => {
  it('never stores a created API key and refuses to hand it out again, even after revocation', async () => {
    const body = { projectId: t.projectId, name: 'ci-secret' };
    const first = await t.api('POST', '/api-keys', { auth: t.owner, body, headers: idem('key-create-1') });
    expect(first.status).toBe(201);
    const secret = first.body.key as string;
    expect(secret).toMatch(/^trk_/);

    const records = await storedRecords();
    expect(records.filter((r) => r.key === 'key-create-1')).toHaveLength(1);
    for (const r of records) expect(r.response_body ?? '').not.toContain(secret);

    const replay = await t.api('POST', '/api-keys', { auth: t.owner, body, headers: idem('key-create-1') });
    expect(replay.status).toBe(409);
    expect(replay.body.error.message).toMatch(/shown only once/);
    expect(JSON.stringify(replay.body)).not.toContain(secret);

    await t.api('PATCH', `/api-keys/${first.body.id}`, { auth: t.owner, body: { isActive: false } });
    const afterRevoke = await t.api('POST', '/api-keys', { auth: t.owner, body, headers: idem('key-create-1') });
    expect(afterRevoke.status).toBe(409);
    expect(JSON.stringify(afterRevoke.body)).not.toContain(secret);

    const list = await t.api('GET', `/api-keys?projectId=${t.projectId}`, { auth: t.owner });
    expect(list.body.data.filter((k: { name: string }) => k.name === 'ci-secret')).toHaveLength(1);
  });

  it('creates the data dir 0700 and the SQLite database files 0600', async () => {
    const parent = mkdtempSync(join(tmpdir(), 'testreport-perm-'));
    const dataDir = join(parent, 'data');
    // The embedded database's files, whatever TESTREPORT_TEST_DB says.
    const databaseUrl = join(dataDir, 'testreport.db');
    const s = await startTestServer({ dataDir, databaseUrl });
    try {
      await s.api('POST', '/runs', { auth: s.apiKey, body: { projectId: s.projectId, status: 'running' } });
      expect(statSync(dataDir).mode & 0o777).toBe(0o700);
      for (const f of ['testreport.db', 'testreport.db-wal', 'testreport.db-shm', 'secret']) expect(statSync(join(dataDir, f)).mode & 0o777).toBe(0o600);
    } finally {
      await s.server.close();
    }
    // A data dir and database left readable by an older version are made private at the next start.
    chmodSync(dataDir, 0o755);
    chmodSync(join(dataDir, 'testreport.db'), 0o644);
    const again = await startTestServer({ dataDir, databaseUrl });
    try {
      expect(statSync(dataDir).mode & 0o777).toBe(0o700);
      expect(statSync(join(dataDir, 'testreport.db')).mode & 0o777).toBe(0o600);
    } finally {
      await again.close();
      rmSync(parent, { recursive: true, force: true });
    }
  });
});
