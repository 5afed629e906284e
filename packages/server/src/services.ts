import { createAccountService } from './accounts/service.js';
import { createSessionRepo } from './accounts/sessionRepo.js';
import { createSessionService } from './accounts/sessions.js';
import { createUserService } from './accounts/users.js';
import { createApiKeyRepo } from './apiKeys/repo.js';
import { createApiKeyService } from './apiKeys/service.js';
import { createArtifactService } from './artifacts/service.js';
import { createBaselineService } from './baselines/service.js';
import { createBootstrapService } from './bootstrap/service.js';
import type { BackgroundJob, Deps } from './deps.js';
import { createErrorGroupService } from './errorGroups/service.js';
import { createSearchService } from './search/service.js';
import { createInsightService } from './insights/service.js';
import { createShardPlanService } from './shardPlan/service.js';
import { createFlakinessService } from './flakiness/service.js';
import { sharedByServers } from './db/locks.js';
import { createMemoryCounter, createRateLimiter } from './http/rateLimit.js';
import { createDatabaseCounter } from './http/rateLimitRepo.js';
import { createIdempotencyRepo } from './idempotency/repo.js';
import { createIdempotencyService } from './idempotency/service.js';
import { createMeService } from './me/service.js';
import { createMemberService } from './members/service.js';
import { createProjectService } from './projects/service.js';
import { createRetentionService } from './retention/service.js';
import { createInsightRollupJob } from './insights/rollupJob.js';
import { createRunCompare } from './runs/compare.js';
import { createRunComparison } from './runs/comparison.js';
import { createRunOverview } from './runs/overview.js';
import { createRunService } from './runs/service.js';
import { createRunSummaries } from './runs/summary.js';
import { createShardTimeouts } from './runs/timeouts.js';
import { createSuiteService } from './suites/service.js';
import { createTeamService } from './teams/service.js';
import { createCaseStateService } from './results/caseState.js';
import { createResultService } from './results/service.js';
import { createWebhookService } from './webhooks/service.js';
import { createSsoService } from './sso/service.js';

/** Builds every service once per app. Routes reach services only through this object. */
export function createServices(deps: Deps) {
  const { db, config } = deps;
  // Built first: other services reach users, teams and projects only through these.
  const users = createUserService(deps);
  const projects = createProjectService(deps);
  const teams = createTeamService(deps, projects);
  const sessions = createSessionService(createSessionRepo(db), config);
  const apiKeys = createApiKeyService(createApiKeyRepo(db), deps.authz, config);
  const retention = createRetentionService(deps);
  const insightRollup = createInsightRollupJob(deps);
  const runSummaries = createRunSummaries(deps, projects.internal);
  const webhooks = createWebhookService(deps, runSummaries);
  const runs = createRunService(deps);
  const flakiness = createFlakinessService(deps);
  const errorGroups = createErrorGroupService(deps);
  const shardTimeouts = createShardTimeouts(deps, runs);
  const members = createMemberService(deps);

  const services = {
    deps,
    sessions,
    apiKeys,
    accounts: createAccountService(deps, { teams, projects }),
    /** Single sign-on; null without `--oidc-issuer`. */
    sso: config.oidc ? createSsoService(deps, config.oidc, { users, members }) : null,
    teams,
    members,
    projects,
    runs,
    shardTimeouts,
    results: createResultService(deps, { runs }),
    runComparison: createRunComparison(deps),
    runCompare: createRunCompare(deps),
    runOverview: createRunOverview(deps),
    runSummaries,
    caseState: createCaseStateService(deps, flakiness.internal),
    suites: createSuiteService(deps),
    flakiness,
    errorGroups,
    search: createSearchService(deps),
    insights: createInsightService(deps),
    insightRollup,
    shardPlan: createShardPlanService(deps),
    artifacts: createArtifactService(deps),
    baselines: createBaselineService(deps),
    webhooks,
    retention,
    me: createMeService({ users, teams, projects }),
    bootstrap: createBootstrapService({ users, teams, projects, apiKeys }),
    idempotency: createIdempotencyService(db, createIdempotencyRepo(db), config),
    rateLimiter: createRateLimiter(config.now, sharedByServers(db) ? createDatabaseCounter(db) : createMemoryCounter()),
    jobs: [retention.job, webhooks.job, shardTimeouts.job, insightRollup.job].filter((j): j is BackgroundJob => j !== undefined),
  };
  return services;
}
export type Services = ReturnType<typeof createServices>;
