import type { Handlers } from '../http/handler.js';

export const testsHandlers: Handlers<'tests.create' | 'tests.createBatch' | 'tests.list' | 'tests.get' | 'tests.steps' | 'tests.history'> = {
  'tests.create': async ({ body, principal, services }) => services.tests.create(principal, body),
  'tests.createBatch': async ({ body, principal, services }) => services.tests.createBatch(principal, body.tests),
  'tests.list': async ({ query, principal, services }) => services.tests.list(principal, query),
  'tests.get': async ({ params, principal, services }) => services.tests.get(principal, params.id),
  'tests.steps': async ({ params, query, principal, services }) => services.tests.steps(principal, params.id, query.retry),
  'tests.history': async ({ params, principal, services }) => services.tests.history(principal, params.id),
};
