import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError } from '@testreport/client';
import { startTestServer, type TestServer } from '@testreport/server/testing';
import { UsageError } from '../lib/errors.js';
import { keyContext, sessionContext, testContext, type TestContext } from '../testing/context.js';
import { whoami } from './auth.js';
import { createKey, deleteKey, listKeys, setKeyActive } from './keys.js';

let srv: TestServer;
let owner: TestContext;

beforeAll(async () => {
  srv = await startTestServer();
  owner = await sessionContext(srv, srv.owner, { project: srv.projectId });
});

afterAll(() => srv?.close());

const asKey = (key: string) => testContext({ url: srv.url, apiKey: key });

describe('keys', () => {
  it('create returns the key once; it works as a credential for its project; list shows it masked', async () => {
    const created = await createKey(owner, { name: 'GitHub Actions', expiresAt: '2030-01-01T00:00:00Z' });
    expect(created).toMatchObject({ name: 'GitHub Actions', projectId: srv.projectId, expiresAt: '2030-01-01T00:00:00.000Z' });
    expect(created.key).toMatch(/^trk_live_[0-9A-Za-z]{38}$/);
    expect(await whoami(asKey(created.key))).toMatchObject({ type: 'apiKey', apiKey: { id: created.id, name: 'GitHub Actions', projectId: srv.projectId } });

    const list = await listKeys(owner);
    const row = list.data.find((k) => k.id === created.id)!;
    expect(row).toMatchObject({ name: 'GitHub Actions', isActive: true });
    expect(row.maskedKey).toMatch(/^trk_live_\*+/);
    expect(JSON.stringify(list)).not.toContain(created.key);
  });

  it('a disabled key is refused until enabled again', async () => {
    const { id, key } = await createKey(owner, { name: 'toggled' });
    expect(await setKeyActive(owner, { keyId: id, isActive: false })).toMatchObject({ id, isActive: false });
    await expect(whoami(asKey(key))).rejects.toMatchObject({ status: 401, code: 'UNAUTHORIZED' });
    expect(await setKeyActive(owner, { keyId: id, isActive: true })).toMatchObject({ id, isActive: true });
    expect(await whoami(asKey(key))).toMatchObject({ type: 'apiKey' });
  });

  it('delete needs --yes without a terminal; afterwards the key is gone and refused', async () => {
    const { id, key } = await createKey(owner, { name: 'short-lived' });
    await expect(deleteKey(owner, { keyId: id })).rejects.toThrow(/pass --yes/);
    expect((await listKeys(owner)).data.map((k) => k.id)).toContain(id);

    const yes = await sessionContext(srv, srv.owner, { project: srv.projectId, yes: true });
    expect(await deleteKey(yes, { keyId: id })).toMatchObject({ success: true });
    expect((await listKeys(owner)).data.map((k) => k.id)).not.toContain(id);
    await expect(whoami(asKey(key))).rejects.toBeInstanceOf(ApiError);
  });

  it('an API key may list keys but creating one needs a signed-in user', async () => {
    expect((await listKeys(keyContext(srv))).data.length).toBeGreaterThan(0);
    await expect(createKey(keyContext(srv), { name: 'by key' })).rejects.toMatchObject({ status: 403, code: 'FORBIDDEN', message: expect.stringMatching(/API keys cannot/) });
    // With no credential at all, the CLI says what to do before calling anything.
    const err = await createKey(testContext({ url: srv.url, project: srv.projectId }), { name: 'nobody' }).catch((e) => e);
    expect(err).toBeInstanceOf(UsageError);
    expect(err.message).toMatch(/not signed in to .*reporter login/);
  });

  it('a member (not admin) may not create keys: the server says why', async () => {
    const member = await srv.createUser({ teamId: srv.teamId, role: 'member' });
    const ctx = await sessionContext(srv, member, { project: srv.projectId });
    await expect(createKey(ctx, { name: 'nope' })).rejects.toMatchObject({ status: 403, code: 'FORBIDDEN' });
  });
});
