import { reply, type Handlers } from '../http/handler.js';

export const runsHandlers: Handlers<'runs.create' | 'runs.list' | 'runs.get' | 'runs.update' | 'runs.delete' | 'runs.shards' | 'runs.complete' | 'runs.cancel' | 'runs.summary' | 'runs.compare'> = {
  // 201 when this call created the run, 200 when a shard of a CI build joined the build's run.
  'runs.create': async ({ body, principal, services }) => {
    const { created, run } = await services.runs.create(principal, body);
    return reply(created ? 201 : 200, run);
  },
  'runs.list': async ({ query, principal, services }) => services.runs.list(principal, query),
  'runs.get': async ({ params, principal, services }) => services.runs.get(principal, params.id),
  'runs.update': async ({ params, body, principal, services }) => services.runs.update(principal, params.id, body),
  'runs.shards': async ({ params, principal, services }) => services.runs.shards(principal, params.id),
  'runs.complete': async ({ params, principal, services }) => services.runs.complete(principal, params.id),
  'runs.cancel': async ({ params, principal, services }) => services.runs.cancel(principal, params.id),
  'runs.delete': async ({ params, principal, services }) => services.runs.delete(principal, params.id),
  'runs.summary': async ({ params, query, principal, services }) => services.runSummaries.get(principal, params.id, query),
  'runs.compare': async ({ params, query, principal, services }) => services.runCompare.compare(principal, params.id, query),
};
