import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../testing/harness.js';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(async () => {
  await t?.close();
});

describe('foundation', () => {
  it('answers /healthz', async () => {
    const res = await fetch(`${t.url}/healthz`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 'ok', database: 'ok', storage: 'ok', disk: 'ok' });
  });

  it('answers 503 on /healthz, naming the artifact store, when it cannot be used', async () => {
    const { renameSync, rmSync, writeFileSync } = await import('node:fs');
    const { join } = await import('node:path');
    const artifacts = join(t.dataDir, 'artifacts');
    // A file where the store's directory should be: unusable even for root.
    renameSync(artifacts, `${artifacts}.away`);
    writeFileSync(artifacts, 'not a directory');
    try {
      const res = await fetch(`${t.url}/healthz`);
      expect(res.status).toBe(503);
      expect(await res.json()).toEqual({ status: 'unavailable', database: 'ok', storage: 'unreachable', disk: 'ok' });
    } finally {
      rmSync(artifacts);
      renameSync(`${artifacts}.away`, artifacts);
    }
  });

  it('serves an OpenAPI 3.1 document with every operation', async () => {
    const res = await t.api('GET', '/openapi.json');
    expect(res.status).toBe(200);
    expect(res.body.openapi).toBe('3.1.0');
    expect(res.body.paths['/api/v1/runs'].post.operationId).toBe('runs.create');
    expect(res.body.paths['/api/v1/runs/{id}'].patch.requestBody.content['application/json'].schema.properties.status.enum).toContain('cancelled');
  });

  it('answers GET /me for an API key and for a user', async () => {
    const k = await t.api('GET', '/me', { auth: t.apiKey });
    expect(k.status).toBe(200);
    expect(k.body).toMatchObject({ type: 'apiKey', apiKey: { projectId: t.projectId }, project: { id: t.projectId } });
    const u = await t.api('GET', '/me', { auth: t.owner });
    expect(u.status).toBe(200);
    expect(u.body).toMatchObject({ type: 'user', user: { id: t.owner.userId }, teams: [{ id: t.teamId, role: 'owner' }] });
  });

  it('refuses missing and invalid credentials with 401 in the error envelope', async () => {
    const none = await t.api('GET', '/me');
    expect(none.status).toBe(401);
    expect(none.body.error.code).toBe('UNAUTHORIZED');
    const bad = await t.api('GET', '/me', { auth: 'trk_live_' + 'a'.repeat(38) });
    expect(bad.status).toBe(401);
    expect(bad.body.error.message).toMatch(/checksum/);
  });

  it('maps malformed JSON to 400 naming the body', async () => {
    const res = await t.api('POST', '/api-keys', { auth: t.owner, body: '{"projectId": ' });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'VALIDATION_ERROR', details: { field: 'body', reason: 'invalid_type' } });
  });

  it('creates a project once and replays the answer for the same Idempotency-Key', async () => {
    const headers = { 'Idempotency-Key': 'k-1' };
    const a = await t.api('POST', '/projects', { auth: t.owner, body: { teamId: t.teamId, name: 'idem' }, headers });
    const b = await t.api('POST', '/projects', { auth: t.owner, body: { teamId: t.teamId, name: 'idem' }, headers });
    expect(a.status).toBe(201);
    expect(b.status).toBe(201);
    expect(b.body).toEqual(a.body);
    expect(b.headers.get('idempotent-replayed')).toBe('true');
    const list = await t.api('GET', `/projects?teamId=${t.teamId}`, { auth: t.owner });
    expect(list.body.data.filter((p: { name: string }) => p.name === 'idem')).toHaveLength(1);
  });

  it('answers unknown routes with NOT_FOUND', async () => {
    const res = await t.api('GET', '/nope', { auth: t.apiKey });
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('NOT_FOUND');
  });
});
