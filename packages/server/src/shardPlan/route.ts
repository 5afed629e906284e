import type { Handlers } from '../http/handler.js';

export const shardPlanHandlers: Handlers<'projects.shardPlan'> = {
  'projects.shardPlan': async ({ params, query, principal, services }) => services.shardPlan.plan(principal, params.id, query),
};
