import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '@testreport/server/testing';
import { AuthenticationError, ConflictError, NotFoundError, PermissionError, TestReportClient } from '@testreport/client';
import { clientFor, mailedToken } from './realServer.js';

let t: TestServer;
let owner: TestReportClient;

beforeAll(async () => {
  t = await startTestServer();
  owner = clientFor(t, t.owner);
});
afterAll(async () => {
  await t?.close();
});

const uniqueEmail = (label: string) => `${label}-${Math.random().toString(36).slice(2, 10)}@example.test`;

describe('auth', () => {
  it('signup → verifyEmail → login (the client keeps the session) → me → onboarding → logout', async () => {
    const email = uniqueEmail('new');
    const sdk = clientFor(t, null);
    const signed = await sdk.auth.signup({ email, password: 'long enough secret', name: 'New Person' });
    expect(signed.user).toMatchObject({ email, emailVerified: false });

    const early = await sdk.auth.login({ email, password: 'long enough secret' }).catch((e) => e);
    expect(early).toBeInstanceOf(PermissionError);
    expect(early.code).toBe('EMAIL_NOT_VERIFIED');

    expect(await sdk.auth.verifyEmail({ token: mailedToken(t, email) })).toHaveProperty('message');
    const login = await sdk.auth.login({ email, password: 'long enough secret' });
    expect(login.user).toMatchObject({ email, emailVerified: true });
    expect(login.sessionCookie).toMatch(/^testreport_session=.+/);
    expect(sdk.sessionCookie).toBe(login.sessionCookie);

    const me = await sdk.auth.me();
    expect(me).toMatchObject({ user: { email }, teams: [] });
    const onboarded = await sdk.auth.onboarding({ teamName: 'New team', projectName: 'First project' });
    expect(onboarded).toMatchObject({ team: { name: 'New team' }, project: { name: 'First project', teamId: onboarded.team.id } });
    expect((await sdk.me()).type).toBe('user');
    await expect(sdk.auth.onboarding({ teamName: 'Again', projectName: 'Again' })).rejects.toBeInstanceOf(ConflictError);

    // The stored cookie works in a fresh client (how the CLI keeps a login between commands).
    const reused = clientFor(t, null, { sessionCookie: login.sessionCookie });
    expect((await reused.teams.list()).data.map((x) => x.name)).toEqual(['New team']);

    expect(await sdk.auth.logout()).toHaveProperty('message');
    expect(sdk.sessionCookie).toBeUndefined();
    await expect(reused.auth.me()).rejects.toBeInstanceOf(AuthenticationError);
    // Signing out of a session the server already ended still leaves the client signed out.
    await expect(reused.auth.logout()).rejects.toBeInstanceOf(AuthenticationError);
    expect(reused.sessionCookie).toBeUndefined();
  });

  it('forgotPassword → resetPassword → login with the new password', async () => {
    const user = await t.createUser();
    const sdk = clientFor(t, null);
    expect(await sdk.auth.forgotPassword({ email: user.email })).toHaveProperty('message');
    await sdk.auth.resetPassword({ token: mailedToken(t, user.email), password: 'a brand new password' });
    await expect(sdk.auth.login({ email: user.email, password: user.password })).rejects.toBeInstanceOf(AuthenticationError);
    expect((await sdk.auth.login({ email: user.email, password: 'a brand new password' })).user.id).toBe(user.userId);
  });
});

describe('teams', () => {
  it('create, list, update, delete', async () => {
    const team = await owner.teams.create({ name: 'SDK team' });
    expect(team.name).toBe('SDK team');
    expect((await owner.teams.list()).data).toContainEqual(expect.objectContaining({ id: team.id, role: 'owner' }));
    expect(await owner.teams.update(team.id, { name: 'Renamed' })).toMatchObject({ id: team.id, name: 'Renamed' });
    expect(await owner.teams.delete(team.id)).toMatchObject({ success: true });
    expect((await owner.teams.list()).data.map((x) => x.id)).not.toContain(team.id);
  });

  it('refuses teams calls made with an API key (account-level)', async () => {
    const err = await clientFor(t, t.apiKey).teams.list().catch((e) => e);
    expect(err).toBeInstanceOf(PermissionError);
  });
});

describe('projects', () => {
  it('create, list, get, update, settings, delete', async () => {
    const p = await owner.projects.create({ name: 'SDK project', teamId: t.teamId });
    expect(p).toMatchObject({ name: 'SDK project', teamId: t.teamId });
    expect((await owner.projects.list({ teamId: t.teamId })).data.map((x) => x.id)).toContain(p.id);
    expect((await owner.projects.get(p.id)).name).toBe('SDK project');
    expect(await owner.projects.update(p.id, { name: 'Renamed', dataRetentionDays: 7 })).toMatchObject({ id: p.id, name: 'Renamed' });
    expect(await owner.projects.getSettings(p.id)).toMatchObject({ projectId: p.id, dataRetentionDays: 7, flakinessThreshold: 0.3, autoQuarantineEnabled: false });
    expect(await owner.projects.updateSettings(p.id, { autoQuarantineEnabled: true })).toMatchObject({ dataRetentionDays: 7, autoQuarantineEnabled: true });
    expect(await owner.projects.delete(p.id)).toMatchObject({ success: true });
    await expect(owner.projects.get(p.id)).rejects.toBeInstanceOf(NotFoundError);
  });
});

describe('members and invitations', () => {
  it('invite → list → accept by the invitee → change role → remove', async () => {
    const email = uniqueEmail('invitee');
    const inv = await owner.members.invite({ teamId: t.teamId, email, role: 'member' });
    expect(inv).toMatchObject({ teamId: t.teamId, email, role: 'member', status: 'pending' });
    expect((await owner.invitations.list({ teamId: t.teamId })).data.map((x) => x.id)).toContain(inv.id);

    const invitee = await t.createUser({ email });
    const accepted = await clientFor(t, invitee).invitations.accept({ token: mailedToken(t, email) });
    expect(accepted).toMatchObject({ teamId: t.teamId, role: 'member', member: { email } });

    const members = await owner.members.list({ teamId: t.teamId });
    const member = members.data.find((m) => m.email === email)!;
    expect(member).toMatchObject({ role: 'member', userId: invitee.userId });
    expect(await owner.members.update(member.id, { role: 'viewer' })).toMatchObject({ id: member.id, role: 'viewer' });
    expect(await owner.members.remove(member.id)).toMatchObject({ success: true });
    expect((await owner.members.list({ teamId: t.teamId })).data.map((m) => m.email)).not.toContain(email);
  });

  it('revoke closes a pending invitation', async () => {
    const inv = await owner.members.invite({ teamId: t.teamId, email: uniqueEmail('revoked'), role: 'viewer' });
    expect(await owner.invitations.revoke(inv.id)).toMatchObject({ success: true });
    const listed = (await owner.invitations.list({ teamId: t.teamId })).data.find((x) => x.id === inv.id);
    expect(listed?.status).toBe('revoked');
  });
});

describe('API keys', () => {
  it('create (full key once), list (masked), deactivate, delete', async () => {
    const made = await owner.apiKeys.create({ projectId: t.projectId, name: 'SDK key' });
    expect(made.key).toMatch(/^trk_live_/);
    const keyClient = clientFor(t, made.key);
    await keyClient.verify({ projectId: t.projectId });

    const listed = (await keyClient.apiKeys.list({ projectId: t.projectId })).data.find((k) => k.id === made.id)!;
    expect(listed.maskedKey).toBe(`trk_live_${'*'.repeat(24)}${made.key.slice(-4)}`);

    expect(await owner.apiKeys.update(made.id, { isActive: false })).toMatchObject({ id: made.id, isActive: false });
    await expect(keyClient.me()).rejects.toBeInstanceOf(AuthenticationError);
    expect(await owner.apiKeys.update(made.id, { isActive: true })).toMatchObject({ isActive: true });
    expect((await keyClient.me()).type).toBe('apiKey');

    expect(await owner.apiKeys.delete(made.id)).toMatchObject({ success: true });
    await expect(keyClient.me()).rejects.toBeInstanceOf(AuthenticationError);
  });
});

describe('webhooks', () => {
  it('create, get, list, update, test (ping), deliveries, iterateDeliveries, delete', async () => {
    const sdk = clientFor(t, t.apiKey);
    const hook = await sdk.webhooks.create({ projectId: t.projectId, url: 'https://hooks.example.test/testreport', events: ['run.completed'], secret: 's3cret', headers: { 'X-Team': 'qa' } });
    expect(hook).toMatchObject({ projectId: t.projectId, events: ['run.completed'], format: 'generic', hasSecret: true, isActive: true, headers: { 'X-Team': 'qa' } });
    expect((await sdk.webhooks.get(hook.id)).url).toBe('https://hooks.example.test/testreport');
    expect((await sdk.webhooks.list({ projectId: t.projectId })).data.map((w) => w.id)).toContain(hook.id);
    expect(await sdk.webhooks.update(hook.id, { events: ['run.completed', 'run.failed'], format: 'slack', isActive: false, secret: null })).toMatchObject({
      events: ['run.completed', 'run.failed'], format: 'slack', isActive: false, hasSecret: false,
    });
    const ping = await sdk.webhooks.test(hook.id);
    expect(ping).toMatchObject({ webhookId: hook.id, event: 'ping' });
    const page = await sdk.webhooks.deliveries(hook.id, { limit: 10 });
    expect(page.data.map((d) => d.id)).toContain(ping.id);
    const all = [];
    for await (const d of sdk.webhooks.iterateDeliveries(hook.id, { limit: 1 })) all.push(d.id);
    expect(all).toContain(ping.id);
    expect(await sdk.webhooks.delete(hook.id)).toMatchObject({ success: true });
    await expect(sdk.webhooks.get(hook.id)).rejects.toBeInstanceOf(NotFoundError);
  });
});
