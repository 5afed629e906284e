import type { Handlers } from '../http/handler.js';

export const runsHandlers: Handlers<'runs.create' | 'runs.list' | 'runs.get' | 'runs.update' | 'runs.delete' | 'runs.summary'> = {
  'runs.create': async ({ body, principal, services }) => services.runs.create(principal, body),
  'runs.list': async ({ query, principal, services }) => services.runs.list(principal, query),
  'runs.get': async ({ params, principal, services }) => services.runs.get(principal, params.id),
  'runs.update': async ({ params, body, principal, services }) => services.runs.update(principal, params.id, body),
  'runs.delete': async ({ params, principal, services }) => services.runs.delete(principal, params.id),
  'runs.summary': async ({ params, query, principal, services }) => services.runSummaries.get(principal, params.id, query),
};
