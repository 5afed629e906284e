import { accountsHandlers } from './accounts/route.js';
import { apiKeysHandlers } from './apiKeys/route.js';
import { artifactsHandlers } from './artifacts/route.js';
import { baselinesHandlers } from './baselines/route.js';
import { errorGroupsHandlers } from './errorGroups/route.js';
import { flakinessHandlers } from './flakiness/route.js';
import type { Handlers } from './http/handler.js';
import { meHandlers } from './me/route.js';
import { membersHandlers } from './members/route.js';
import { projectsHandlers } from './projects/route.js';
import { runsHandlers } from './runs/route.js';
import { searchHandlers } from './search/route.js';
import { insightsHandlers } from './insights/route.js';
import { shardPlanHandlers } from './shardPlan/route.js';
import { suitesHandlers } from './suites/route.js';
import { teamsHandlers } from './teams/route.js';
import { resultsHandlers } from './results/route.js';
import { webhooksHandlers } from './webhooks/route.js';

/** Every operation of the contract has exactly one handler; a missing one fails to compile. */
export const handlers: Handlers = {
  ...accountsHandlers,
  ...teamsHandlers,
  ...membersHandlers,
  ...projectsHandlers,
  ...apiKeysHandlers,
  ...meHandlers,
  ...runsHandlers,
  ...shardPlanHandlers,
  ...resultsHandlers,
  ...suitesHandlers,
  ...flakinessHandlers,
  ...errorGroupsHandlers,
  ...searchHandlers,
  ...insightsHandlers,
  ...artifactsHandlers,
  ...baselinesHandlers,
  ...webhooksHandlers,
};
