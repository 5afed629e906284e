import type { Handlers } from '../http/handler.js';

export const teamsHandlers: Handlers<'teams.list' | 'teams.create' | 'teams.update' | 'teams.delete'> = {
  'teams.list': async ({ principal, services }) => ({ data: await services.teams.list(principal) }),
  'teams.create': async ({ body, principal, services }) => services.teams.create(principal, body.name),
  'teams.update': async ({ params, body, principal, services }) => services.teams.rename(principal, params.id, body.name),
  'teams.delete': async ({ params, principal, services }) => services.teams.delete(principal, params.id),
};
