import type { Handlers } from '../http/handler.js';

export const searchHandlers: Handlers<'search'> = {
  search: async ({ query, principal, services }) => services.search.search(principal, query),
};
