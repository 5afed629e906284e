import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { filesUnder, png, upload } from '../testing/artifacts.js';
import type { ArtifactStore } from '../artifacts/store.js';
import { newId } from '../lib/ids.js';
import { startTestServer, type TestServer } from '../testing/harness.js';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(async () => {
  await t?.close();
});

async function newProject(name = `P ${newId().slice(-6)}`, teamId = t.teamId) {
  const res = await t.api('POST', '/projects', { auth: t.owner, body: { name, teamId } });
  expect(res.status).toBe(201);
  return res.body as { id: string; name: string; teamId: string };
}

/** Rows of every table that holds project data, for "nothing was left behind" checks. */
async function rowsOf(projectId: string) {
  const db = t.server.services.deps.db;
  const counts: Record<string, number> = {};
  for (const table of ['runs', 'tests', 'test_suites', 'test_cases', 'artifacts', 'api_keys', 'webhooks', 'webhook_deliveries', 'project_settings'] as const) {
    const r = await db.selectFrom(table).select((eb) => eb.fn.countAll<number>().as('n')).where('project_id', '=', projectId).executeTakeFirstOrThrow();
    counts[table] = Number(r.n);
  }
  const p = await db.selectFrom('projects').select((eb) => eb.fn.countAll<number>().as('n')).where('id', '=', projectId).executeTakeFirstOrThrow();
  counts.projects = Number(p.n);
  // The insights aggregates, pending or folded (on PostgreSQL no foreign key cascades there: migration 026).
  let insights = 0;
  for (const table of ['insight_pending', 'insight_rollups'] as const) {
    insights += Number((await db.selectFrom(table).select((eb) => eb.fn.countAll<number>().as('n')).where('project_id', '=', projectId).executeTakeFirstOrThrow()).n);
  }
  counts.insights = insights;
  return counts;
}

/** A project with a run, a test, a suite, an uploaded artifact, an extra key and a webhook with a delivery. */
async function fillProject(projectId: string) {
  const key = await t.api('POST', '/api-keys', { auth: t.owner, body: { projectId, name: 'ci' } });
  expect(key.status).toBe(201);
  const run = await t.api('POST', '/runs', { auth: key.body.key, body: { projectId, status: 'running' } });
  expect(run.status).toBe(201);
  const test = await t.api('POST', '/tests', { auth: key.body.key, body: { runId: run.body.id, projectId, title: 't', fullTitle: 's > t', status: 'passed', duration: 5 } });
  expect(test.status).toBe(201);
  expect((await t.api('POST', '/test-suites', { auth: key.body.key, body: { runId: run.body.id, projectId, title: 's' } })).status).toBe(201);
  const art = await upload(t, { auth: key.body.key, fields: { type: 'screenshot', runId: run.body.id, projectId }, fileName: 'shot.png', contentType: 'image/png', content: png() });
  expect(art.status).toBe(201);
  // Webhooks are written directly: their service is built elsewhere and only the cascade matters here.
  const now = new Date().toISOString();
  const db = t.server.services.deps.db;
  const hookId = newId();
  await db.insertInto('webhooks').values({ id: hookId, project_id: projectId, url: 'https://hooks.example.test', events: '["run.completed"]', secret: null, is_active: 1, created_at: now, updated_at: now }).execute();
  await db.insertInto('webhook_deliveries').values({ id: newId(), webhook_id: hookId, project_id: projectId, event: 'run.completed', payload: '{}', status: 'pending', next_attempt_at: now, locked_until: null, created_at: now, updated_at: now }).execute();
  return { apiKey: key.body.key as string };
}

describe('projects', () => {
  it('creates, lists, gets and renames a project', async () => {
    const p = await newProject('Checkout');
    expect(p).toMatchObject({ name: 'Checkout', teamId: t.teamId });
    const list = await t.api('GET', `/projects?teamId=${t.teamId}`, { auth: t.owner });
    expect(list.status).toBe(200);
    expect(list.body.data[0]).toMatchObject({ id: p.id, name: 'Checkout' });
    expect(list.body.data.map((x: { id: string }) => x.id)).toContain(t.projectId);

    const got = await t.api('GET', `/projects/${p.id}`, { auth: t.owner });
    expect(got.body).toMatchObject({ id: p.id, name: 'Checkout', teamId: t.teamId });

    const renamed = await t.api('PATCH', `/projects/${p.id}`, { auth: t.owner, body: { name: '  Checkout v2 ' } });
    expect(renamed.status).toBe(200);
    expect(Object.keys(renamed.body).sort()).toEqual(['id', 'name', 'teamId', 'updatedAt']);
    expect(renamed.body.name).toBe('Checkout v2');
    expect((await t.api('GET', `/projects/${p.id}`, { auth: t.owner })).body.name).toBe('Checkout v2');
  });

  it('validates names and ids with the field named', async () => {
    const empty = await t.api('POST', '/projects', { auth: t.owner, body: { name: '   ', teamId: t.teamId } });
    expect(empty.status).toBe(400);
    expect(empty.body.error.details).toMatchObject({ field: 'name', reason: 'required' });
    const noTeam = await t.api('POST', '/projects', { auth: t.owner, body: { name: 'x' } });
    expect(noTeam.body.error.details).toMatchObject({ field: 'teamId', reason: 'required' });
    const long = await t.api('PATCH', `/projects/${t.projectId}`, { auth: t.owner, body: { name: 'x'.repeat(201) } });
    expect(long.body.error.details).toMatchObject({ field: 'name', reason: 'too_long' });
    const noQuery = await t.api('GET', '/projects', { auth: t.owner });
    expect(noQuery.body.error.details).toMatchObject({ field: 'teamId', reason: 'required' });
  });

  it('serves settings with the defaults and changes only the fields given', async () => {
    const p = await newProject();
    const s = await t.api('GET', `/projects/${p.id}/settings`, { auth: t.owner });
    expect(s.status).toBe(200);
    expect(s.body).toMatchObject({ projectId: p.id, dataRetentionDays: 30, flakinessThreshold: 0.3, autoQuarantineEnabled: false });

    const patched = await t.api('PATCH', `/projects/${p.id}/settings`, { auth: t.owner, body: { dataRetentionDays: 90 } });
    expect(patched.body).toMatchObject({ dataRetentionDays: 90, flakinessThreshold: 0.3, autoQuarantineEnabled: false });
    const both = await t.api('PATCH', `/projects/${p.id}`, { auth: t.owner, body: { flakinessThreshold: 0.5, autoQuarantineEnabled: true } });
    expect(both.status).toBe(200);
    const after = await t.api('GET', `/projects/${p.id}/settings`, { auth: t.owner });
    expect(after.body).toMatchObject({ dataRetentionDays: 90, flakinessThreshold: 0.5, autoQuarantineEnabled: true });

    for (const edge of [1, 3650]) {
      expect((await t.api('PATCH', `/projects/${p.id}/settings`, { auth: t.owner, body: { dataRetentionDays: edge } })).body.dataRetentionDays).toBe(edge);
    }
    for (const [body, field] of [
      [{ dataRetentionDays: 0 }, 'dataRetentionDays'],
      [{ dataRetentionDays: 3651 }, 'dataRetentionDays'],
      [{ flakinessThreshold: 1.01 }, 'flakinessThreshold'],
      [{ flakinessThreshold: -0.1 }, 'flakinessThreshold'],
    ] as const) {
      for (const path of [`/projects/${p.id}/settings`, `/projects/${p.id}`]) {
        const res = await t.api('PATCH', path, { auth: t.owner, body });
        expect(res.status).toBe(400);
        expect(res.body.error).toMatchObject({ code: 'VALIDATION_ERROR', details: { field, reason: 'out_of_range' } });
      }
    }
    const wrongType = await t.api('PATCH', `/projects/${p.id}/settings`, { auth: t.owner, body: { autoQuarantineEnabled: 'yes' } });
    expect(wrongType.body.error.details).toMatchObject({ field: 'autoQuarantineEnabled', reason: 'invalid_type' });
    const fraction = await t.api('PATCH', `/projects/${p.id}/settings`, { auth: t.owner, body: { dataRetentionDays: 1.5 } });
    expect(fraction.status).toBe(400);
    // A rejected PATCH writes nothing, not even the valid fields beside the bad one.
    const mixed = await t.api('PATCH', `/projects/${p.id}`, { auth: t.owner, body: { name: 'should not stick', dataRetentionDays: 0 } });
    expect(mixed.status).toBe(400);
    expect((await t.api('GET', `/projects/${p.id}`, { auth: t.owner })).body.name).toBe(p.name);
    expect((await t.api('GET', `/projects/${p.id}/settings`, { auth: t.owner })).body.dataRetentionDays).toBe(3650);
  });

  it('deletes a project with everything it owns, rows and files', async () => {
    const p = await newProject('Doomed');
    const { apiKey } = await fillProject(p.id);
    const before = await rowsOf(p.id);
    for (const table of ['runs', 'tests', 'test_suites', 'test_cases', 'artifacts', 'api_keys', 'webhooks', 'webhook_deliveries', 'project_settings', 'projects', 'insights']) {
      expect(before[table], table).toBeGreaterThan(0);
    }
    const files = join(t.dataDir, 'artifacts', 'projects', p.id);
    expect(filesUnder(files).length).toBeGreaterThan(0);

    const del = await t.api('DELETE', `/projects/${p.id}`, { auth: t.owner });
    expect(del.status).toBe(200);
    expect(del.body).toMatchObject({ success: true });
    expect(Object.values(await rowsOf(p.id)).every((n) => n === 0)).toBe(true);
    expect(filesUnder(files)).toEqual([]);
    expect((await t.api('GET', `/projects/${p.id}`, { auth: t.owner })).status).toBe(404);
    expect((await t.api('GET', '/me', { auth: apiKey })).status).toBe(401);
    // The team's other projects are untouched.
    expect((await t.api('GET', `/projects/${t.projectId}`, { auth: t.owner })).status).toBe(200);
  });

  it('still deletes the project when removing its files fails, and logs it', async () => {
    const errors: string[] = [];
    const s = await startTestServer({ logger: { error: (m: string) => errors.push(m), warn() {}, info() {}, debug() {} } });
    try {
      const deps = s.server.services.deps;
      const real = deps.store;
      const broken: ArtifactStore = { ...real, deletePrefix: async () => Promise.reject(new Error('disk unavailable')) };
      deps.store = broken;
      const res = await s.api('DELETE', `/projects/${s.projectId}`, { auth: s.owner });
      deps.store = real;
      expect(res.status).toBe(200);
      expect((await s.api('GET', `/projects/${s.projectId}`, { auth: s.owner })).status).toBe(404);
      expect(errors.some((m) => m.includes(s.projectId))).toBe(true);
    } finally {
      await s.close();
    }
  });
});

describe('project authorization', () => {
  it('lets viewers read, members create, and only admins and owners manage or delete', async () => {
    const viewer = await t.createUser({ teamId: t.teamId, role: 'viewer' });
    const member = await t.createUser({ teamId: t.teamId, role: 'member' });
    const admin = await t.createUser({ teamId: t.teamId, role: 'admin' });
    const p = await newProject();

    expect((await t.api('GET', `/projects/${p.id}`, { auth: viewer })).status).toBe(200);
    expect((await t.api('GET', `/projects/${p.id}/settings`, { auth: viewer })).status).toBe(200);
    expect((await t.api('POST', '/projects', { auth: viewer, body: { name: 'v', teamId: t.teamId } })).status).toBe(403);
    expect((await t.api('POST', '/projects', { auth: member, body: { name: 'm', teamId: t.teamId } })).status).toBe(201);
    for (const u of [viewer, member]) {
      expect((await t.api('PATCH', `/projects/${p.id}`, { auth: u, body: { name: 'no' } })).status).toBe(403);
      expect((await t.api('PATCH', `/projects/${p.id}/settings`, { auth: u, body: { dataRetentionDays: 5 } })).status).toBe(403);
      expect((await t.api('DELETE', `/projects/${p.id}`, { auth: u })).status).toBe(403);
    }
    expect((await t.api('PATCH', `/projects/${p.id}/settings`, { auth: admin, body: { dataRetentionDays: 5 } })).status).toBe(200);
    expect((await t.api('DELETE', `/projects/${p.id}`, { auth: admin })).status).toBe(200);
  });

  it('limits an API key to its own project', async () => {
    const other = await newProject();
    const list = await t.api('GET', `/projects?teamId=${t.teamId}`, { auth: t.apiKey });
    expect(list.status).toBe(200);
    expect(list.body.data.map((p: { id: string }) => p.id)).toEqual([t.projectId]);
    expect((await t.api('GET', `/projects/${t.projectId}`, { auth: t.apiKey })).status).toBe(200);
    expect((await t.api('GET', `/projects/${t.projectId}/settings`, { auth: t.apiKey })).status).toBe(200);
    expect((await t.api('GET', `/projects/${other.id}`, { auth: t.apiKey })).status).toBe(404);
    expect((await t.api('POST', '/projects', { auth: t.apiKey, body: { name: 'k', teamId: t.teamId } })).status).toBe(403);
    expect((await t.api('PATCH', `/projects/${t.projectId}`, { auth: t.apiKey, body: { name: 'k' } })).status).toBe(403);
    expect((await t.api('DELETE', `/projects/${t.projectId}`, { auth: t.apiKey })).status).toBe(403);

    const tenant = await t.createOtherTenant();
    expect((await t.api('GET', `/projects?teamId=${tenant.teamId}`, { auth: t.apiKey })).status).toBe(403);
  });

  it('keeps other tenants out: 403 for an explicit teamId, 404 for a project id', async () => {
    const tenant = await t.createOtherTenant();
    expect((await t.api('GET', `/projects?teamId=${tenant.teamId}`, { auth: t.owner })).status).toBe(403);
    expect((await t.api('POST', '/projects', { auth: t.owner, body: { name: 'x', teamId: tenant.teamId } })).status).toBe(403);
    for (const [method, path] of [
      ['GET', `/projects/${tenant.projectId}`],
      ['PATCH', `/projects/${tenant.projectId}`],
      ['DELETE', `/projects/${tenant.projectId}`],
      ['GET', `/projects/${tenant.projectId}/settings`],
      ['PATCH', `/projects/${tenant.projectId}/settings`],
    ] as const) {
      const res = await t.api(method, path, { auth: t.owner, body: method === 'PATCH' ? { name: 'x' } : undefined });
      expect(res.status, `${method} ${path}`).toBe(404);
    }
    expect((await t.api('GET', `/projects/${tenant.projectId}`, { auth: tenant.owner })).body.name).toBe('Project B');
  });
});
