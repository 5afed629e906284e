import type { Invitation, TeamMember } from '@testreport/contract';
import type { InvitationsTable } from '../db/schema.js';
import type { MemberRow } from './memberRepo.js';

export const toMember = (r: MemberRow): TeamMember => ({
  id: r.id,
  userId: r.user_id,
  teamId: r.team_id,
  role: r.role,
  name: r.name,
  email: r.email,
  avatarUrl: r.avatar_url,
  joinedAt: r.joined_at,
});

/** `expired` is derived at read time: a pending invitation past its expiry is never stored as such. */
export const invitationStatus = (r: InvitationsTable, now: string): Invitation['status'] =>
  r.status === 'pending' && r.expires_at <= now ? 'expired' : (r.status as Invitation['status']);

export const toInvitation = (r: InvitationsTable, now: string): Invitation => ({
  id: r.id,
  teamId: r.team_id,
  email: r.email,
  role: r.role as Invitation['role'],
  status: invitationStatus(r, now),
  expiresAt: r.expires_at,
  createdAt: r.created_at,
});
