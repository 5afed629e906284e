import type { Invitation, ResponseOf, TeamMember, TeamRole } from '@testreport/contract';
import type { Action } from '../authz/policy.js';
import type { Principal } from '../authz/principal.js';
import { createMailOut } from '../accounts/mailing.js';
import type { Deps } from '../deps.js';
import { randomToken, sha256Hex } from '../lib/crypto.js';
import { ConflictError, ForbiddenError, NotFoundError, UnauthorizedError } from '../lib/errors.js';
import { newId } from '../lib/ids.js';
import { createInvitationRepo } from './invitationRepo.js';
import { invitationMail } from './mails.js';
import { createMemberRepo } from './memberRepo.js';
import { invitationStatus, toInvitation, toMember } from './present.js';

/** Spec table 8: an invitation lives 7 days. */
export const INVITATION_TTL_MS = 7 * 24 * 3600 * 1000;

const LAST_OWNER =
  'A team must keep at least one owner: make another member owner first, or delete the team';

/**
 * Members and invitations. Who may act comes from the policy table (`deps.authz`); the owner rules
 * of docs/decisions.md §6 live here: admins never act on owners nor make owners, and the last owner stays.
 */
export function createMemberService(deps: Deps) {
  const { db, config, authz } = deps;
  const members = createMemberRepo(db);
  const invitations = createInvitationRepo(db);
  const mail = createMailOut(deps.mailer, deps.logger);
  const nowIso = () => config.now().toISOString();

  /** Team access derived from a member or invitation id: outside the caller's teams it does not exist. */
  async function teamAccessVia(principal: Principal, teamId: string, action: Action, what: string): Promise<TeamRole> {
    try {
      return await authz.team(principal, teamId, action, 'resource');
    } catch (err) {
      if (err instanceof NotFoundError) throw new NotFoundError(what);
      throw err;
    }
  }

  async function memberOrThrow(id: string) {
    const row = await members.findById(id);
    if (!row) throw new NotFoundError('Team member');
    return row;
  }

  /**
   * Internal, for single sign-on's team claim (sso/teamSync.ts): no principal and no authorization
   * check (the identity provider decides), but the last owner of a team is kept: reported, not thrown.
   */
  const internal = {
    async setRole(teamId: string, userId: string, role: TeamRole): Promise<{ change: 'added' | 'changed' | 'kept-last-owner' | 'none'; from?: TeamRole }> {
      const member = await members.findByUser(teamId, userId);
      if (!member) {
        await members.insert({ id: newId(), team_id: teamId, user_id: userId, role, joined_at: nowIso() });
        return { change: 'added' };
      }
      if (member.role === role) return { change: 'none' };
      if (member.role === 'owner' && (await members.countOwners(teamId)) <= 1) return { change: 'kept-last-owner' };
      await members.updateRole(member.id, role);
      return { change: 'changed', from: member.role };
    },
    async remove(teamId: string, userId: string): Promise<{ change: 'removed' | 'kept-last-owner' | 'none'; role?: TeamRole }> {
      const member = await members.findByUser(teamId, userId);
      if (!member) return { change: 'none' };
      if (member.role === 'owner' && (await members.countOwners(teamId)) <= 1) return { change: 'kept-last-owner' };
      await members.delete(member.id);
      return { change: 'removed', role: member.role };
    },
  };

  return {
    internal,

    async list(principal: Principal, teamId: string): Promise<TeamMember[]> {
      await authz.team(principal, teamId, 'members.read', 'param');
      return (await members.listByTeam(teamId)).map(toMember);
    },

    async invite(principal: Principal, input: { teamId: string; email: string; role: Invitation['role'] }): Promise<Invitation> {
      if (principal.kind !== 'user') throw new UnauthorizedError();
      const email = input.email.trim().toLowerCase();
      // Inviting an admin hands out member management, so it needs that right itself.
      await authz.team(principal, input.teamId, input.role === 'admin' ? 'members.manage' : 'members.invite', 'param');
      const now = config.now();
      const token = randomToken();
      const row = {
        id: newId(), team_id: input.teamId, email, role: input.role, status: 'pending', token_hash: sha256Hex(token),
        invited_by: principal.userId, expires_at: new Date(now.getTime() + INVITATION_TTL_MS).toISOString(),
        accepted_at: null, created_at: now.toISOString(), updated_at: now.toISOString(),
      };
      await db.transaction().execute(async (trx) => {
        if (await createMemberRepo(trx).findByEmail(input.teamId, email)) {
          throw new ConflictError(`${email} is already a member of this team`, { field: 'email' });
        }
        if (await createInvitationRepo(trx).findOpen(input.teamId, email, row.created_at)) {
          throw new ConflictError(`An invitation to ${email} is already pending; revoke it to send a new one`, { field: 'email' });
        }
        await createInvitationRepo(trx).insert(row);
      });
      const team = await db.selectFrom('teams').select('name').where('id', '=', input.teamId).executeTakeFirst();
      const inviter = await db.selectFrom('users').select(['name', 'email']).where('id', '=', principal.userId).executeTakeFirst();
      mail.send(
        invitationMail(email, {
          teamName: team?.name ?? 'a team',
          inviter: inviter ? `${inviter.name} (${inviter.email})` : 'A teammate',
          role: input.role,
          url: `${config.publicUrl}/accept-invitation?token=${encodeURIComponent(token)}`,
        }),
      );
      return toInvitation(row, row.created_at);
    },

    async updateRole(principal: Principal, memberId: string, role: TeamRole): Promise<TeamMember> {
      const target = await memberOrThrow(memberId);
      const callerRole = await teamAccessVia(principal, target.team_id, 'members.manage', 'Team member');
      if (callerRole !== 'owner' && target.role === 'owner') throw new ForbiddenError("Only an owner can change an owner's role");
      if (callerRole !== 'owner' && role === 'owner') throw new ForbiddenError('Only an owner can make someone an owner');
      await db.transaction().execute(async (trx) => {
        const repo = createMemberRepo(trx);
        const current = await repo.findById(memberId);
        if (!current) throw new NotFoundError('Team member');
        if (current.role === 'owner' && role !== 'owner' && (await repo.countOwners(current.team_id)) <= 1) throw new ConflictError(LAST_OWNER);
        await repo.updateRole(memberId, role);
      });
      return toMember(await memberOrThrow(memberId));
    },

    /** Managers remove others; anyone may leave, except the last owner. */
    async remove(principal: Principal, memberId: string): Promise<ResponseOf<'members.remove'>> {
      const target = await memberOrThrow(memberId);
      const leaving = principal.kind === 'user' && principal.userId === target.user_id;
      if (leaving) {
        await teamAccessVia(principal, target.team_id, 'members.read', 'Team member');
      } else {
        const callerRole = await teamAccessVia(principal, target.team_id, 'members.manage', 'Team member');
        if (callerRole !== 'owner' && target.role === 'owner') throw new ForbiddenError('Only an owner can remove an owner');
      }
      await db.transaction().execute(async (trx) => {
        const repo = createMemberRepo(trx);
        const current = await repo.findById(memberId);
        if (!current) throw new NotFoundError('Team member');
        if (current.role === 'owner' && (await repo.countOwners(current.team_id)) <= 1) throw new ConflictError(LAST_OWNER);
        await repo.delete(memberId);
      });
      return { success: true, message: leaving ? 'You left the team' : 'Member removed from the team' };
    },

    async listInvitations(principal: Principal, teamId: string): Promise<Invitation[]> {
      await authz.team(principal, teamId, 'members.invite', 'param');
      const now = nowIso();
      return (await invitations.listByTeam(teamId)).map((r) => toInvitation(r, now));
    },

    /** Only the signed-in (hence verified) owner of the invited address may accept, once. */
    async accept(principal: Principal, token: string): Promise<ResponseOf<'invitations.accept'>> {
      if (principal.kind !== 'user') throw new UnauthorizedError();
      const inv = await invitations.findByTokenHash(sha256Hex(token));
      if (!inv) throw new NotFoundError('Invitation');
      if (inv.email !== principal.email.toLowerCase()) {
        throw new ForbiddenError('This invitation was sent to a different e-mail address: sign in with the invited address to accept it');
      }
      const now = nowIso();
      const status = invitationStatus(inv, now);
      if (status === 'expired') throw new ConflictError('This invitation has expired; ask a team member for a new one', { status });
      if (status !== 'pending') throw new ConflictError(`This invitation has already been ${status}`, { status });
      const memberId = newId();
      await db.transaction().execute(async (trx) => {
        const repo = createMemberRepo(trx);
        if (await repo.findByUser(inv.team_id, principal.userId)) throw new ConflictError('You are already a member of this team');
        if (!(await createInvitationRepo(trx).closePending(inv.id, 'accepted', now))) throw new ConflictError('This invitation is no longer pending');
        await repo.insert({ id: memberId, team_id: inv.team_id, user_id: principal.userId, role: inv.role, joined_at: now });
      });
      const member = toMember(await memberOrThrow(memberId));
      return { teamId: inv.team_id, role: member.role, member };
    },

    /** Team managers, or the member who sent it. */
    async revoke(principal: Principal, id: string): Promise<ResponseOf<'invitations.revoke'>> {
      const inv = await invitations.findById(id);
      if (!inv) throw new NotFoundError('Invitation');
      const isInviter = principal.kind === 'user' && inv.invited_by === principal.userId;
      await teamAccessVia(principal, inv.team_id, isInviter ? 'members.invite' : 'members.manage', 'Invitation');
      if (inv.status !== 'pending' || !(await invitations.closePending(id, 'revoked', nowIso()))) {
        throw new ConflictError(`This invitation is already ${inv.status === 'pending' ? 'closed' : inv.status}`, { status: inv.status });
      }
      return { success: true, message: 'Invitation revoked' };
    },
  };
}
export type MemberService = ReturnType<typeof createMemberService>;
