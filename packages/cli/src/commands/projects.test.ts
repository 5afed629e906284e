import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '@testreport/server/testing';
import { UsageError } from '../lib/errors.js';
import { keyContext, sessionContext } from '../testing/context.js';
import { createProject, deleteProject, getProject, listProjects } from './projects.js';

let srv: TestServer;

beforeAll(async () => {
  srv = await startTestServer();
});

afterAll(() => srv?.close());

describe('projects', () => {
  it('a user lists the projects of their teams; a key sees its own project', async () => {
    const owner = await sessionContext(srv);
    expect((await listProjects(owner)).data.map((p) => p.id)).toEqual([srv.projectId]);
    expect((await listProjects(keyContext(srv))).data).toMatchObject([{ id: srv.projectId, teamId: srv.teamId }]);
  });

  it('get shows the project in force, or the one named', async () => {
    expect(await getProject(keyContext(srv))).toMatchObject({ id: srv.projectId, teamId: srv.teamId, name: 'Project A' });
    expect(await getProject(await sessionContext(srv), { projectId: srv.projectId })).toMatchObject({ id: srv.projectId });
  });

  it('a user with no project chosen is told how to choose one', async () => {
    await expect(getProject(await sessionContext(srv))).rejects.toThrow(/no project chosen: pass --project/);
  });

  it('create puts the project in the user’s only team; delete asks, then removes it', async () => {
    const owner = await sessionContext(srv);
    const created = await createProject(owner, { name: 'cli-made' });
    expect(created).toMatchObject({ name: 'cli-made', teamId: srv.teamId });
    expect((await listProjects(owner)).data.map((p) => p.name)).toContain('cli-made');

    await expect(deleteProject(owner, { projectId: created.id })).rejects.toThrow(/pass --yes/);
    expect(await getProject(owner, { projectId: created.id })).toMatchObject({ id: created.id });

    const yes = await sessionContext(srv, srv.owner, { yes: true });
    expect(await deleteProject(yes, { projectId: created.id })).toMatchObject({ success: true });
    await expect(getProject(owner, { projectId: created.id })).rejects.toMatchObject({ status: 404 });
  });

  it('someone in two teams must say which team to create in', async () => {
    const other = await srv.createOtherTenant();
    const both = await srv.createUser({ teamId: srv.teamId, role: 'admin' });
    await srv.server.services.deps.db.insertInto('team_members').values({ id: crypto.randomUUID(), team_id: other.teamId, user_id: both.userId, role: 'admin', joined_at: new Date().toISOString() }).execute();
    const ctx = await sessionContext(srv, both);
    const err = await createProject(ctx, { name: 'where?' }).catch((e) => e);
    expect(err).toBeInstanceOf(UsageError);
    expect(err.message).toMatch(/you are in 2 teams: pass --team/);
    expect(await createProject(ctx, { name: 'here', teamId: other.teamId })).toMatchObject({ teamId: other.teamId });
    expect((await listProjects(ctx, { teamId: other.teamId })).data.map((p) => p.name).sort()).toEqual(['Project B', 'here']);
  });

  it('a key cannot create projects', async () => {
    await expect(createProject(keyContext(srv), { name: 'by key' })).rejects.toMatchObject({ status: 403, code: 'FORBIDDEN' });
  });
});
