import type { Handlers } from '../http/handler.js';

export const flakinessHandlers: Handlers<'flakiness.list' | 'flakiness.update' | 'flakiness.events'> = {
  'flakiness.list': async ({ query, principal, services }) => services.flakiness.list(principal, query),
  'flakiness.update': async ({ body, principal, services }) => services.flakiness.setQuarantine(principal, body),
  'flakiness.events': async ({ params, query, principal, services }) => services.flakiness.events(principal, { testId: params.testId, projectId: query.projectId }),
};
