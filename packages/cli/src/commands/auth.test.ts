import { statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError } from '@testreport/client';
import { startTestServer, type TestServer } from '@testreport/server/testing';
import { UsageError } from '../lib/errors.js';
import { keyContext, testContext } from '../testing/context.js';
import { login, logout, whoami } from './auth.js';

let srv: TestServer;

beforeAll(async () => {
  srv = await startTestServer();
});

afterAll(() => srv?.close());

describe('login, whoami, logout', () => {
  it('whoami with an API key names the key and its project', async () => {
    const me = await whoami(keyContext(srv));
    expect(me).toMatchObject({ type: 'apiKey', project: { id: srv.projectId } });
  });

  it('a wrong password is refused by the server and stores nothing', async () => {
    const ctx = testContext({ url: srv.url });
    const err = await login(ctx, { email: srv.owner.email, password: 'not the password' }).catch((e) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ status: 401, code: 'UNAUTHORIZED' });
    expect(() => statSync(join(ctx.configDir, 'credentials.json'))).toThrow(/ENOENT/);
  });

  it('login stores a 0600 session that later commands use; logout ends it on the server and forgets it', async () => {
    const first = testContext({ url: srv.url });
    const res = await login(first, { email: srv.owner.email, password: srv.owner.password });
    expect(res).toMatchObject({ user: { email: srv.owner.email }, url: srv.url, credentialsFile: join(first.configDir, 'credentials.json') });
    expect(statSync(res.credentialsFile).mode & 0o777).toBe(0o600);

    // A new invocation (same config folder, no API key) is signed in.
    const next = testContext({ url: srv.url }, { configDir: first.configDir });
    const me = await whoami(next);
    expect(me).toMatchObject({ type: 'user', user: { email: srv.owner.email }, teams: [{ id: srv.teamId, role: 'owner' }] });

    expect(await logout(next)).toEqual({ loggedOut: true, serverSessionEnded: true });
    const after = testContext({ url: srv.url }, { configDir: first.configDir });
    await expect(whoami(after)).rejects.toBeInstanceOf(UsageError);
    // The session itself is dead on the server, not just forgotten here.
    const cookie = next.config.session!.sessionCookie;
    expect((await srv.api('GET', '/me', { auth: { ...srv.owner, cookie } })).status).toBe(401);
  });

  it('logout with no stored session says so and does not fail', async () => {
    expect(await logout(testContext({ url: srv.url }))).toEqual({ loggedOut: false, serverSessionEnded: false });
  });

  it('a session is only sent to the server it was made on', async () => {
    const first = testContext({ url: srv.url });
    await login(first, { email: srv.owner.email, password: srv.owner.password });
    const elsewhere = testContext({ url: 'http://127.0.0.1:9' }, { configDir: first.configDir });
    expect(elsewhere.config.session).toBeUndefined();
    await expect(whoami(elsewhere)).rejects.toThrow(/no credentials for http:\/\/127.0.0.1:9/);
  });
});
