import { z } from 'zod';
import { id, name, successResponse, timestamp } from './common.js';

export const TEAM_ROLES = ['owner', 'admin', 'member', 'viewer'] as const;
export const teamRole = z.enum(TEAM_ROLES);
export type TeamRole = (typeof TEAM_ROLES)[number];
export const INVITABLE_ROLES = ['admin', 'member', 'viewer'] as const;
export const invitableRole = z.enum(INVITABLE_ROLES);

export const team = z.object({ id, name: z.string(), createdAt: timestamp });
export type Team = z.infer<typeof team>;
export const teamWithRole = team.extend({ role: teamRole });
export const teamList = z.object({ data: z.array(teamWithRole) });
export const teamCreate = z.object({ name });
export const teamUpdate = z.object({ name });
export const teamUpdated = team.extend({ updatedAt: timestamp });
export const teamDeleted = successResponse;

export const member = z.object({
  id,
  userId: id,
  teamId: id,
  role: teamRole,
  name: z.string(),
  email: z.string(),
  avatarUrl: z.string().nullable(),
  joinedAt: timestamp,
});
export type TeamMember = z.infer<typeof member>;
export const memberListQuery = z.object({ teamId: id });
export const memberList = z.object({ data: z.array(member) });
export const memberUpdate = z.object({ role: teamRole });
export const memberDeleted = successResponse;

export const INVITATION_STATUSES = ['pending', 'accepted', 'revoked', 'expired'] as const;
export const invitation = z.object({
  id,
  teamId: id,
  email: z.string(),
  role: invitableRole,
  status: z.enum(INVITATION_STATUSES),
  expiresAt: timestamp,
  createdAt: timestamp,
});
export type Invitation = z.infer<typeof invitation>;
export const invitationCreate = z.object({ teamId: id, email: z.email().max(254), role: invitableRole });
export type InvitationCreate = z.input<typeof invitationCreate>;
export const invitationListQuery = z.object({ teamId: id });
export const invitationList = z.object({ data: z.array(invitation) });
export const invitationAccept = z.object({ token: z.string().min(1).max(500) });
export const invitationAccepted = z.object({ teamId: id, role: teamRole, member });
export const invitationRevoked = successResponse;
