import type { Handlers } from '../http/handler.js';

export const resultsHandlers: Handlers<'tests.create' | 'tests.createBatch' | 'tests.list' | 'tests.get' | 'tests.steps' | 'tests.history'> = {
  'tests.create': async ({ body, principal, services }) => services.results.create(principal, body),
  'tests.createBatch': async ({ body, principal, services }) => services.results.createBatch(principal, body.tests),
  'tests.list': async ({ query, principal, services }) => services.results.list(principal, query),
  'tests.get': async ({ params, principal, services }) => services.results.get(principal, params.id),
  'tests.steps': async ({ params, query, principal, services }) => services.results.steps(principal, params.id, query.retry),
  'tests.history': async ({ params, principal, services }) => services.results.history(principal, params.id),
};
