import type { Handlers } from '../http/handler.js';

export const projectsHandlers: Handlers<'projects.list' | 'projects.create' | 'projects.get' | 'projects.update' | 'projects.delete' | 'projects.getSettings' | 'projects.updateSettings'> = {
  'projects.list': async ({ query, principal, services }) => ({ data: await services.projects.list(principal, query.teamId) }),
  'projects.create': async ({ body, principal, services }) => services.projects.create(principal, body),
  'projects.get': async ({ params, principal, services }) => services.projects.get(principal, params.id),
  'projects.update': async ({ params, body, principal, services }) => services.projects.update(principal, params.id, body),
  'projects.delete': async ({ params, principal, services }) => services.projects.delete(principal, params.id),
  'projects.getSettings': async ({ params, principal, services }) => services.projects.getSettings(principal, params.id),
  'projects.updateSettings': async ({ params, body, principal, services }) => services.projects.updateSettings(principal, params.id, body),
};
