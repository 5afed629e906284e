import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '@testreport/server/testing';
import { UsageError } from '../lib/errors.js';
import { keyContext, sessionContext } from '../testing/context.js';
import { getSettings, updateSettings } from './settings.js';

let srv: TestServer;

beforeAll(async () => {
  srv = await startTestServer();
});

afterAll(() => srv?.close());

describe('settings', () => {
  it('an API key reads its project’s settings (the defaults)', async () => {
    expect(await getSettings(keyContext(srv))).toMatchObject({ projectId: srv.projectId, dataRetentionDays: 30, flakinessThreshold: 0.3, autoQuarantineEnabled: false });
  });

  it('the owner changes only the given settings', async () => {
    const owner = await sessionContext(srv, srv.owner, { project: srv.projectId });
    expect(await updateSettings(owner, { dataRetentionDays: 90, autoQuarantineEnabled: true })).toMatchObject({ dataRetentionDays: 90, autoQuarantineEnabled: true, flakinessThreshold: 0.3 });
    expect(await updateSettings(owner, { flakinessThreshold: 0.25 })).toMatchObject({ dataRetentionDays: 90, autoQuarantineEnabled: true, flakinessThreshold: 0.25, defaultBranch: 'main' });
    expect(await updateSettings(owner, { defaultBranch: 'develop' })).toMatchObject({ dataRetentionDays: 90, defaultBranch: 'develop' });
    expect(await updateSettings(owner, { shardTimeoutMinutes: 45 })).toMatchObject({ dataRetentionDays: 90, defaultBranch: 'develop', shardTimeoutMinutes: 45 });
    expect(await getSettings(keyContext(srv))).toMatchObject({ dataRetentionDays: 90, flakinessThreshold: 0.25 });
  });

  it('nothing to change is a usage error; nothing is sent', async () => {
    const owner = await sessionContext(srv, srv.owner, { project: srv.projectId });
    await expect(updateSettings(owner, {})).rejects.toBeInstanceOf(UsageError);
  });

  it('an out-of-range value is refused by the server naming the field, and nothing changes', async () => {
    const owner = await sessionContext(srv, srv.owner, { project: srv.projectId });
    const before = await getSettings(keyContext(srv));
    await expect(updateSettings(owner, { dataRetentionDays: 0, flakinessThreshold: 0.9 })).rejects.toMatchObject({ status: 400, details: { field: 'dataRetentionDays' } });
    expect(await getSettings(keyContext(srv))).toEqual(before);
  });

  it('a key may read settings but not change them', async () => {
    await expect(updateSettings(keyContext(srv), { dataRetentionDays: 5 })).rejects.toMatchObject({ status: 403, code: 'FORBIDDEN' });
    expect((await getSettings(keyContext(srv))).dataRetentionDays).not.toBe(5);
  });
});
