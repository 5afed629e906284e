import type { Handlers } from '../http/handler.js';

export const membersHandlers: Handlers<'members.list' | 'members.invite' | 'members.update' | 'members.remove' | 'invitations.list' | 'invitations.accept' | 'invitations.revoke'> = {
  'members.list': async ({ query, principal, services }) => ({ data: await services.members.list(principal, query.teamId) }),
  'members.invite': async ({ body, principal, services }) => services.members.invite(principal, body),
  'members.update': async ({ params, body, principal, services }) => services.members.updateRole(principal, params.id, body.role),
  'members.remove': async ({ params, principal, services }) => services.members.remove(principal, params.id),
  'invitations.list': async ({ query, principal, services }) => ({ data: await services.members.listInvitations(principal, query.teamId) }),
  'invitations.accept': async ({ body, principal, services }) => services.members.accept(principal, body.token),
  'invitations.revoke': async ({ params, principal, services }) => services.members.revoke(principal, params.id),
};
