import type { Handlers } from '../http/handler.js';

export const errorGroupsHandlers: Handlers<'errors.list' | 'errors.get'> = {
  'errors.list': async ({ query, principal, services }) => services.errorGroups.list(principal, query),
  'errors.get': async ({ params, query, principal, services }) => services.errorGroups.get(principal, params.fingerprint, query),
};
