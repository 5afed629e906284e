import type { Handlers } from '../http/handler.js';

export const meHandlers: Handlers<'me'> = {
  me: async ({ principal, services }) => services.me.get(principal),
};
