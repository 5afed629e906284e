import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { filesUnder, png, upload } from '../testing/artifacts.js';
import { startTestServer, type TestServer } from '../testing/harness.js';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(async () => {
  await t?.close();
});

describe('teams', () => {
  it('lists the caller’s teams with their role and makes the creator owner', async () => {
    const user = await t.createUser({ teamId: t.teamId, role: 'viewer' });
    const created = await t.api('POST', '/teams', { auth: user, body: { name: ' Platform ' } });
    expect(created.status).toBe(201);
    expect(Object.keys(created.body).sort()).toEqual(['createdAt', 'id', 'name']);
    expect(created.body.name).toBe('Platform');
    const list = await t.api('GET', '/teams', { auth: user });
    expect(list.status).toBe(200);
    expect(list.body.data).toEqual([
      expect.objectContaining({ id: t.teamId, name: 'Team A', role: 'viewer' }),
      expect.objectContaining({ id: created.body.id, name: 'Platform', role: 'owner' }),
    ]);
    const members = await t.api('GET', `/team-members?teamId=${created.body.id}`, { auth: user });
    expect(members.body.data).toEqual([expect.objectContaining({ userId: user.userId, role: 'owner', email: user.email })]);
    // Teams of others stay invisible.
    expect((await t.api('GET', '/teams', { auth: t.owner })).body.data.map((x: { id: string }) => x.id)).not.toContain(created.body.id);
  });

  it('lets admins and owners rename, nobody else', async () => {
    const admin = await t.createUser({ teamId: t.teamId, role: 'admin' });
    const member = await t.createUser({ teamId: t.teamId, role: 'member' });
    const renamed = await t.api('PATCH', `/teams/${t.teamId}`, { auth: admin, body: { name: 'Team A1' } });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toMatchObject({ id: t.teamId, name: 'Team A1' });
    expect(renamed.body.updatedAt).toBeTruthy();
    expect((await t.api('PATCH', `/teams/${t.teamId}`, { auth: member, body: { name: 'nope' } })).status).toBe(403);
    expect((await t.api('PATCH', `/teams/${t.teamId}`, { auth: t.owner, body: { name: '' } })).body.error.details).toMatchObject({ field: 'name', reason: 'required' });
    expect((await t.api('GET', '/teams', { auth: member })).body.data[0].name).toBe('Team A1');
    const tenant = await t.createOtherTenant();
    expect((await t.api('PATCH', `/teams/${tenant.teamId}`, { auth: t.owner, body: { name: 'x' } })).status).toBe(404);
  });

  it('refuses API keys on every team endpoint', async () => {
    for (const [method, path, body] of [
      ['GET', '/teams', undefined],
      ['POST', '/teams', { name: 'k' }],
      ['PATCH', `/teams/${t.teamId}`, { name: 'k' }],
      ['DELETE', `/teams/${t.teamId}`, undefined],
    ] as const) {
      const res = await t.api(method, path, { auth: t.apiKey, body });
      expect(res.status, `${method} ${path}`).toBe(403);
    }
  });

  it('lets only an owner delete a team, taking its projects, keys and files with it', async () => {
    // No periodic fold: the insights rows below stay where the test puts them.
    const s = await startTestServer({ backgroundJobs: false });
    try {
      const admin = await s.createUser({ teamId: s.teamId, role: 'admin' });
      const run = await s.api('POST', '/runs', { auth: s.apiKey, body: { projectId: s.projectId, status: 'running' } });
      // A result folded into the insights rollups and one still pending.
      const result = (title: string) => s.api('POST', '/tests', { auth: s.apiKey, body: { runId: run.body.id, projectId: s.projectId, title, fullTitle: title, status: 'passed', duration: 5 } });
      expect((await result('folded')).status).toBe(201);
      await s.server.services.insightRollup.foldOnce();
      expect((await result('pending')).status).toBe(201);
      const insightRows = async () => {
        const n: Record<string, number> = {};
        for (const table of ['insight_pending', 'insight_rollups'] as const) {
          n[table] = Number((await s.server.services.deps.db.selectFrom(table).select((eb) => eb.fn.countAll<number>().as('n')).where('project_id', '=', s.projectId).executeTakeFirstOrThrow()).n);
        }
        return n;
      };
      expect(await insightRows()).toEqual({ insight_pending: 1, insight_rollups: 2 });
      const art = await upload(s, { auth: s.apiKey, fields: { type: 'screenshot', runId: run.body.id, projectId: s.projectId }, fileName: 'a.png', contentType: 'image/png', content: png() });
      expect(art.status).toBe(201);
      const second = await s.api('POST', '/projects', { auth: s.owner, body: { name: 'Second', teamId: s.teamId } });
      const files = join(s.dataDir, 'artifacts', 'projects', s.projectId);
      expect(filesUnder(files).length).toBe(1);

      expect((await s.api('DELETE', `/teams/${s.teamId}`, { auth: admin })).status).toBe(403);
      const del = await s.api('DELETE', `/teams/${s.teamId}`, { auth: s.owner });
      expect(del.status).toBe(200);
      expect(del.body).toMatchObject({ success: true, message: expect.stringMatching(/2 projects/) });

      expect(filesUnder(files)).toEqual([]);
      expect((await s.api('GET', '/teams', { auth: s.owner })).body.data).toEqual([]);
      expect((await s.api('GET', `/projects/${second.body.id}`, { auth: s.owner })).status).toBe(404);
      expect((await s.api('GET', '/me', { auth: s.apiKey })).status).toBe(401);
      const db = s.server.services.deps.db;
      for (const table of ['projects', 'team_members', 'invitations'] as const) {
        const r = await db.selectFrom(table).select((eb) => eb.fn.countAll<number>().as('n')).where('team_id', '=', s.teamId).executeTakeFirstOrThrow();
        expect(Number(r.n), table).toBe(0);
      }
      expect(await insightRows()).toEqual({ insight_pending: 0, insight_rollups: 0 });
      expect((await s.api('DELETE', `/teams/${s.teamId}`, { auth: s.owner })).status).toBe(404);
    } finally {
      await s.close();
    }
  });
});
