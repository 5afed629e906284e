import type { Handlers } from '../http/handler.js';

export const insightsHandlers: Handlers<'insights'> = {
  insights: async ({ query, principal, services }) => services.insights.get(principal, query),
};
