import { reply, type Handlers } from '../http/handler.js';

export const suitesHandlers: Handlers<'testSuites.upsert' | 'testSuites.createBatch' | 'testSuites.list'> = {
  'testSuites.upsert': async ({ body, principal, services }) => {
    const { suite, created } = await services.suites.upsert(principal, body);
    return reply(created ? 201 : 200, suite);
  },
  'testSuites.createBatch': async ({ body, principal, services }) => services.suites.upsertBatch(principal, body.suites),
  'testSuites.list': async ({ query, principal, services }) => services.suites.list(principal, query),
};
