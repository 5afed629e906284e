import type { Handlers } from '../http/handler.js';

export const apiKeysHandlers: Handlers<'apiKeys.list' | 'apiKeys.create' | 'apiKeys.update' | 'apiKeys.delete'> = {
  'apiKeys.list': async ({ query, principal, services }) => ({ data: await services.apiKeys.list(principal, query.projectId) }),
  'apiKeys.create': async ({ body, principal, services }) => services.apiKeys.create(principal, body),
  'apiKeys.update': async ({ params, body, principal, services }) => services.apiKeys.setActive(principal, params.id, body.isActive),
  'apiKeys.delete': async ({ params, principal, services }) => services.apiKeys.delete(principal, params.id),
};
