import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readOutbox, tokenFrom, uniqueEmail, waitForMail } from '../testing/outbox.js';
import { startTestServer, type TestServer, type TestUser } from '../testing/harness.js';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(async () => {
  await t?.close();
});

const freshEmail = () => uniqueEmail('invitee');

/** Sends an invitation and returns it with the token from the mailed link. */
async function invite(server: TestServer, by: TestUser, email: string, role: 'admin' | 'member' | 'viewer', teamId = server.teamId) {
  const before = readOutbox(server.dataDir).length;
  const res = await server.api('POST', '/team-members', { auth: by, body: { teamId, email, role } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  const mail = await waitForMail(server.dataDir, email.toLowerCase(), /invited/, { after: before });
  return { invitation: res.body, mail, ...tokenFrom(mail, 'accept-invitation') };
}

async function memberIdOf(userId: string, teamId = t.teamId) {
  const list = await t.api('GET', `/team-members?teamId=${teamId}`, { auth: t.owner });
  return list.body.data.find((m: { userId: string }) => m.userId === userId)?.id as string;
}

describe('members', () => {
  it('lists members with their user details for every role, not for API keys or outsiders', async () => {
    const viewer = await t.createUser({ teamId: t.teamId, role: 'viewer' });
    const res = await t.api('GET', `/team-members?teamId=${t.teamId}`, { auth: viewer });
    expect(res.status).toBe(200);
    expect(res.body.data[0]).toEqual({
      id: expect.any(String), userId: t.owner.userId, teamId: t.teamId, role: 'owner', name: expect.any(String),
      email: t.owner.email, avatarUrl: null, joinedAt: expect.any(String),
    });
    expect(res.body.data.map((m: { userId: string }) => m.userId)).toContain(viewer.userId);
    expect((await t.api('GET', `/team-members?teamId=${t.teamId}`, { auth: t.apiKey })).status).toBe(403);
    const outsider = await t.createUser();
    expect((await t.api('GET', `/team-members?teamId=${t.teamId}`, { auth: outsider })).status).toBe(403);
  });
});

describe('invitations', () => {
  it('invites by mail, and only the invited address can accept, once', async () => {
    const member = await t.createUser({ teamId: t.teamId, role: 'member' });
    const email = freshEmail();
    const { invitation, url, token, mail } = await invite(t, member, email.toUpperCase(), 'viewer');
    expect(invitation).toMatchObject({ teamId: t.teamId, email, role: 'viewer', status: 'pending' });
    expect(Date.parse(invitation.expiresAt) - Date.parse(invitation.createdAt)).toBe(7 * 24 * 3600 * 1000);
    expect(url.startsWith(`${t.url}/accept-invitation?token=`)).toBe(true);
    expect(mail.text).toContain('Team A');
    expect(await (await fetch(url)).text()).toContain('data-flow="accept"');

    const stranger = await t.createUser();
    const wrong = await t.api('POST', '/invitations/accept', { auth: stranger, body: { token } });
    expect(wrong.status).toBe(403);
    expect(wrong.body.error.message).toMatch(/different e-mail/);
    expect((await t.api('POST', '/invitations/accept', { auth: t.apiKey, body: { token } })).status).toBe(403);
    expect((await t.api('POST', '/invitations/accept', { body: { token } })).status).toBe(401);

    const invitee = await t.createUser({ email });
    const accepted = await t.api('POST', '/invitations/accept', { auth: invitee, body: { token } });
    expect(accepted.status).toBe(200);
    expect(accepted.body).toMatchObject({ teamId: t.teamId, role: 'viewer', member: { userId: invitee.userId, role: 'viewer', email } });
    expect((await t.api('GET', '/teams', { auth: invitee })).body.data).toEqual([expect.objectContaining({ id: t.teamId, role: 'viewer' })]);

    const again = await t.api('POST', '/invitations/accept', { auth: invitee, body: { token } });
    expect(again.status).toBe(409);
    const list = await t.api('GET', `/invitations?teamId=${t.teamId}`, { auth: member });
    expect(list.body.data.find((i: { id: string }) => i.id === invitation.id).status).toBe('accepted');
    expect((await t.api('POST', '/invitations/accept', { auth: invitee, body: { token: 'not-a-token' } })).status).toBe(404);
  });

  it('takes a new user from the mailed invitation through sign-up to membership', async () => {
    const email = freshEmail();
    const { token } = await invite(t, t.owner, email, 'member');
    expect((await t.api('POST', '/auth/signup', { body: { email, password: 'invitee password' } })).status).toBe(201);
    const verify = tokenFrom(await waitForMail(t.dataDir, email, /verify/i), 'verify-email');
    await t.api('POST', '/auth/verify-email', { body: { token: verify.token } });
    const login = await t.api('POST', '/auth/login', { body: { email, password: 'invitee password' } });
    const cookie = login.headers.getSetCookie()[0].split(';')[0];
    const res = await t.api('POST', '/invitations/accept', { auth: { userId: '', email, password: '', cookie }, body: { token } });
    expect(res.status).toBe(200);
    expect(res.body.role).toBe('member');
  });

  it('needs members.manage to invite an admin and refuses viewers', async () => {
    const member = await t.createUser({ teamId: t.teamId, role: 'member' });
    const viewer = await t.createUser({ teamId: t.teamId, role: 'viewer' });
    const admin = await t.createUser({ teamId: t.teamId, role: 'admin' });
    expect((await t.api('POST', '/team-members', { auth: member, body: { teamId: t.teamId, email: freshEmail(), role: 'admin' } })).status).toBe(403);
    expect((await t.api('POST', '/team-members', { auth: viewer, body: { teamId: t.teamId, email: freshEmail(), role: 'viewer' } })).status).toBe(403);
    expect((await t.api('GET', `/invitations?teamId=${t.teamId}`, { auth: viewer })).status).toBe(403);
    await invite(t, admin, freshEmail(), 'admin');
    const owner = await t.api('POST', '/team-members', { auth: t.owner, body: { teamId: t.teamId, email: freshEmail(), role: 'owner' } });
    expect(owner.status).toBe(400);
    expect(owner.body.error.details).toMatchObject({ field: 'role', reason: 'invalid_value' });
    const tenant = await t.createOtherTenant();
    expect((await t.api('POST', '/team-members', { auth: t.owner, body: { teamId: tenant.teamId, email: freshEmail(), role: 'viewer' } })).status).toBe(403);
  });

  it('refuses to invite an existing member or an address with a pending invitation', async () => {
    const existing = await t.createUser({ teamId: t.teamId, role: 'viewer' });
    const dup = await t.api('POST', '/team-members', { auth: t.owner, body: { teamId: t.teamId, email: existing.email, role: 'member' } });
    expect(dup.status).toBe(409);
    expect(dup.body.error).toMatchObject({ code: 'CONFLICT', message: expect.stringMatching(/already a member/) });
    const email = freshEmail();
    await invite(t, t.owner, email, 'member');
    expect((await t.api('POST', '/team-members', { auth: t.owner, body: { teamId: t.teamId, email, role: 'viewer' } })).status).toBe(409);
  });

  it('lets the inviter or a manager revoke; a revoked invitation cannot be accepted', async () => {
    const inviter = await t.createUser({ teamId: t.teamId, role: 'member' });
    const otherMember = await t.createUser({ teamId: t.teamId, role: 'member' });
    const email = freshEmail();
    const mine = await invite(t, inviter, email, 'viewer');
    expect((await t.api('DELETE', `/invitations/${mine.invitation.id}`, { auth: otherMember })).status).toBe(403);
    const revoked = await t.api('DELETE', `/invitations/${mine.invitation.id}`, { auth: inviter });
    expect(revoked.status).toBe(200);
    expect(revoked.body.success).toBe(true);
    expect((await t.api('DELETE', `/invitations/${mine.invitation.id}`, { auth: inviter })).status).toBe(409);
    const invitee = await t.createUser({ email });
    const refused = await t.api('POST', '/invitations/accept', { auth: invitee, body: { token: mine.token } });
    expect(refused.status).toBe(409);
    expect(refused.body.error.message).toMatch(/revoked/);

    const byAdmin = await invite(t, otherMember, freshEmail(), 'viewer');
    const admin = await t.createUser({ teamId: t.teamId, role: 'admin' });
    expect((await t.api('DELETE', `/invitations/${byAdmin.invitation.id}`, { auth: admin })).status).toBe(200);
    const list = await t.api('GET', `/invitations?teamId=${t.teamId}`, { auth: admin });
    expect(list.body.data.find((i: { id: string }) => i.id === byAdmin.invitation.id).status).toBe('revoked');
    const tenant = await t.createOtherTenant();
    expect((await t.api('DELETE', `/invitations/${byAdmin.invitation.id}`, { auth: tenant.owner })).status).toBe(404);
  });

  it('expires after 7 days (injectable clock)', async () => {
    let now = new Date('2031-05-01T12:00:00Z');
    const s = await startTestServer({ now: () => now });
    try {
      const email = freshEmail();
      const { invitation, token } = await invite(s, s.owner, email, 'member');
      expect(invitation.expiresAt).toBe('2031-05-08T12:00:00.000Z');
      now = new Date('2031-05-08T12:00:01Z');
      const list = await s.api('GET', `/invitations?teamId=${s.teamId}`, { auth: s.owner });
      expect(list.body.data.find((i: { id: string }) => i.id === invitation.id).status).toBe('expired');
      const invitee = await s.createUser({ email });
      const res = await s.api('POST', '/invitations/accept', { auth: invitee, body: { token } });
      expect(res.status).toBe(409);
      expect(res.body.error).toMatchObject({ code: 'CONFLICT', details: { status: 'expired' } });
      expect((await s.api('GET', '/teams', { auth: invitee })).body.data).toEqual([]);
      // An expired invitation no longer blocks a new one to the same address.
      await invite(s, s.owner, email, 'member');
    } finally {
      await s.close();
    }
  });
});

describe('roles and removal', () => {
  it('lets owners and admins change roles, not members', async () => {
    const admin = await t.createUser({ teamId: t.teamId, role: 'admin' });
    const member = await t.createUser({ teamId: t.teamId, role: 'member' });
    const target = await t.createUser({ teamId: t.teamId, role: 'viewer' });
    const id = await memberIdOf(target.userId);
    expect((await t.api('PATCH', `/team-members/${id}`, { auth: member, body: { role: 'member' } })).status).toBe(403);
    const res = await t.api('PATCH', `/team-members/${id}`, { auth: admin, body: { role: 'member' } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id, userId: target.userId, role: 'member', email: target.email });
    expect((await t.api('PATCH', `/team-members/${id}`, { auth: t.owner, body: { role: 'boss' } })).body.error.details).toMatchObject({ field: 'role', reason: 'invalid_value' });
  });

  it('keeps admins away from owners and from making owners', async () => {
    const admin = await t.createUser({ teamId: t.teamId, role: 'admin' });
    const ownerId = await memberIdOf(t.owner.userId);
    const demote = await t.api('PATCH', `/team-members/${ownerId}`, { auth: admin, body: { role: 'member' } });
    expect(demote.status).toBe(403);
    expect(demote.body.error.message).toMatch(/owner/);
    expect((await t.api('DELETE', `/team-members/${ownerId}`, { auth: admin })).status).toBe(403);
    const self = await memberIdOf(admin.userId);
    expect((await t.api('PATCH', `/team-members/${self}`, { auth: admin, body: { role: 'owner' } })).status).toBe(403);
    const viewer = await t.createUser({ teamId: t.teamId, role: 'viewer' });
    expect((await t.api('PATCH', `/team-members/${await memberIdOf(viewer.userId)}`, { auth: admin, body: { role: 'owner' } })).status).toBe(403);
  });

  it('never loses the last owner, and lets an owner leave once another exists', async () => {
    const s = await startTestServer();
    try {
      const list = async () => (await s.api('GET', `/team-members?teamId=${s.teamId}`, { auth: s.owner })).body.data as Array<{ id: string; userId: string; role: string }>;
      const ownerId = (await list()).find((m) => m.userId === s.owner.userId)!.id;
      const demote = await s.api('PATCH', `/team-members/${ownerId}`, { auth: s.owner, body: { role: 'admin' } });
      expect(demote.status).toBe(409);
      expect(demote.body.error).toMatchObject({ code: 'CONFLICT', message: expect.stringMatching(/at least one owner/) });
      expect((await s.api('DELETE', `/team-members/${ownerId}`, { auth: s.owner })).status).toBe(409);

      const second = await s.createUser({ teamId: s.teamId, role: 'admin' });
      const secondId = (await list()).find((m) => m.userId === second.userId)!.id;
      expect((await s.api('PATCH', `/team-members/${secondId}`, { auth: s.owner, body: { role: 'owner' } })).body.role).toBe('owner');
      const left = await s.api('DELETE', `/team-members/${ownerId}`, { auth: s.owner });
      expect(left.status).toBe(200);
      expect(left.body.message).toMatch(/left/);
      expect((await s.api('GET', '/teams', { auth: s.owner })).body.data).toEqual([]);
      expect((await s.api('GET', `/projects/${s.projectId}`, { auth: s.owner })).status).toBe(404);
      // The remaining owner is now the last one.
      expect((await s.api('PATCH', `/team-members/${secondId}`, { auth: second, body: { role: 'viewer' } })).status).toBe(409);
    } finally {
      await s.close();
    }
  });

  it('lets any member leave and managers remove others', async () => {
    const viewer = await t.createUser({ teamId: t.teamId, role: 'viewer' });
    const member = await t.createUser({ teamId: t.teamId, role: 'member' });
    const admin = await t.createUser({ teamId: t.teamId, role: 'admin' });
    const memberId = await memberIdOf(member.userId);
    expect((await t.api('DELETE', `/team-members/${memberId}`, { auth: viewer })).status).toBe(403);
    expect((await t.api('DELETE', `/team-members/${memberId}`, { auth: admin })).status).toBe(200);
    expect((await t.api('GET', `/projects/${t.projectId}`, { auth: member })).status).toBe(404);
    const viewerId = await memberIdOf(viewer.userId);
    expect((await t.api('DELETE', `/team-members/${viewerId}`, { auth: viewer })).status).toBe(200);
    expect((await t.api('GET', '/teams', { auth: viewer })).body.data).toEqual([]);
    expect((await t.api('DELETE', `/team-members/${viewerId}`, { auth: t.owner })).status).toBe(404);
  });

  it('answers 404 for members of other teams', async () => {
    const tenant = await t.createOtherTenant();
    const list = await t.api('GET', `/team-members?teamId=${tenant.teamId}`, { auth: tenant.owner });
    const foreignId = list.body.data[0].id;
    expect((await t.api('PATCH', `/team-members/${foreignId}`, { auth: t.owner, body: { role: 'viewer' } })).status).toBe(404);
    expect((await t.api('DELETE', `/team-members/${foreignId}`, { auth: t.owner })).status).toBe(404);
  });
});
