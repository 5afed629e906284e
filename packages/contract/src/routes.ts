// Free of zod (see core.ts): the methods and paths a client needs to call the API, without the
// schemas. `endpoints.ts` adds each operation's schemas to these; the two tables have the same keys.
/** Rate-limit groups of spec part 8 and docs/decisions.md §9. `none` is not limited; `auth` is per client address. */
export const RATE_GROUPS = {
  runsRead: 100,
  runsWrite: 30,
  testsRead: 200,
  testsWrite: 60,
  uploads: 30,
  projectsTeams: 60,
  keysWebhooks: 30,
  flakiness: 60,
  auth: 20,
  none: Infinity,
} as const;
export type RateGroup = keyof typeof RATE_GROUPS;

/**
 * Who may call: `any` = API key or session; `user` = signed-in user only (account-level actions);
 * `public` = no credentials (account flows).
 */
export type EndpointAuth = 'any' | 'user' | 'public';

export interface RouteDef {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  /** Hono-style path, relative to {base_url} (base 'api') or {app_url} (base 'app'). */
  path: string;
  base: 'api' | 'app';
  auth: EndpointAuth;
  rateGroup: RateGroup;
  status: 200 | 201;
  /** A second success status with the same body: 200 when a create found what it would have made. */
  alsoOk?: 200;
  /**
   * Error statuses this endpoint answers beyond those every endpoint can (400, 401, 403, 404, 429, 500),
   * every POST (409: Idempotency-Key reuse) and every request with a body (413). See openapi.ts.
   */
  errors?: readonly ErrorStatus[];
  summary: string;
}

/** Error statuses an endpoint may declare in `errors` (docs/decisions.md §3). */
export type ErrorStatus = 409 | 413;

const r = <D extends RouteDef>(d: D) => d;
const api = { base: 'api', auth: 'any' } as const;
const app = { base: 'app', auth: 'public', rateGroup: 'auth' } as const;

/** Every endpoint the server serves and the SDK calls, by operation id: how it is reached. */
export const routes = {
  // Runs
  'runs.create': r({ ...api, method: 'POST', path: '/runs', rateGroup: 'runsWrite', status: 201, alsoOk: 200, summary: 'Create a run (200: a shard of a CI build joined the build\'s run; 409: another shardTotal than the run\'s)' }),
  'runs.list': r({ ...api, method: 'GET', path: '/runs', rateGroup: 'runsRead', status: 200, summary: 'List runs of a project, newest first' }),
  'runs.get': r({ ...api, method: 'GET', path: '/runs/:id', rateGroup: 'runsRead', status: 200, summary: 'Get a run' }),
  'runs.update': r({ ...api, method: 'PATCH', path: '/runs/:id', rateGroup: 'runsWrite', status: 200, summary: 'Update status, counts and duration of a run' }),
  'runs.shards': r({ ...api, method: 'GET', path: '/runs/:id/shards', rateGroup: 'runsRead', status: 200, summary: 'Every attempt of every shard of a CI-build run' }),
  'runs.complete': r({ ...api, method: 'POST', path: '/runs/:id/complete', rateGroup: 'runsWrite', status: 200, summary: 'Finish a run now from what is stored' }),
  'runs.cancel': r({ ...api, method: 'POST', path: '/runs/:id/cancel', rateGroup: 'runsWrite', status: 200, summary: 'Finish a run as cancelled' }),
  'runs.delete': r({ ...api, method: 'DELETE', path: '/runs/:id', rateGroup: 'runsWrite', status: 200, summary: 'Delete a run with its tests, suites and artifacts' }),
  'runs.summary': r({ ...api, method: 'GET', path: '/runs/:id/summary', rateGroup: 'runsRead', status: 200, summary: 'Counts, failures, new failures and fixed tests against a base branch, flaky and quarantined failures of a run' }),
  'runs.compare': r({ ...api, method: 'GET', path: '/runs/:id/compare', rateGroup: 'runsRead', status: 200, summary: 'Compare a run with any other run of its project: new failures, fixed, still failing, added, removed, slower and faster tests' }),
  'runs.baselines': r({ ...api, method: 'GET', path: '/runs/:id/baselines', rateGroup: 'runsRead', status: 200, summary: 'Accepted snapshots of a run, with signed download URLs of their actuals' }),
  // Tests
  'tests.create': r({ ...api, method: 'POST', path: '/tests', rateGroup: 'testsWrite', status: 201, summary: 'Store one test result' }),
  'tests.createBatch': r({ ...api, method: 'POST', path: '/tests/batch', rateGroup: 'testsWrite', status: 201, summary: 'Store 1–500 test results, all or nothing' }),
  'tests.list': r({ ...api, method: 'GET', path: '/tests', rateGroup: 'testsRead', status: 200, summary: 'List test results' }),
  'tests.get': r({ ...api, method: 'GET', path: '/tests/:id', rateGroup: 'testsRead', status: 200, summary: 'Get a test result' }),
  'tests.steps': r({ ...api, method: 'GET', path: '/tests/:id/steps', rateGroup: 'testsRead', status: 200, summary: 'Steps of a test in execution order' }),
  'tests.history': r({ ...api, method: 'GET', path: '/tests/:id/history', rateGroup: 'testsRead', status: 200, summary: 'Last 20 results of the same test case, newest first' }),
  'tests.snapshots': r({ ...api, method: 'GET', path: '/tests/:id/snapshots', rateGroup: 'testsRead', status: 200, summary: 'Failed or missing screenshot comparisons of a test, with their acceptance' }),
  'tests.acceptSnapshots': r({ ...api, method: 'POST', path: '/tests/:id/snapshots/accept', rateGroup: 'testsWrite', status: 200, summary: 'Accept snapshots\' actuals as the new baselines (all, or the names given)' }),
  'tests.unacceptSnapshots': r({ ...api, method: 'DELETE', path: '/tests/:id/snapshots/accept', rateGroup: 'testsWrite', status: 200, summary: 'Undo the acceptance of snapshots (all, or the names given)' }),
  // Error groups
  'errors.list': r({ ...api, method: 'GET', path: '/errors', rateGroup: 'testsRead', status: 200, summary: 'Error groups of a project across runs (fingerprinted errors), most recently seen first' }),
  'errors.get': r({ ...api, method: 'GET', path: '/errors/:fingerprint', rateGroup: 'testsRead', status: 200, summary: 'One error group with its daily occurrences and the tests it hits' }),
  // Insights
  'insights': r({ ...api, method: 'GET', path: '/insights', rateGroup: 'testsRead', status: 200, summary: 'Pass-rate and duration trend, slowest, most failing and flakiest tests and duration regressions of a project over 7, 30 or 90 days' }),
  // Search
  'search': r({ ...api, method: 'GET', path: '/search', rateGroup: 'testsRead', status: 200, summary: 'Test results whose titles, error messages or output contain a text, newest first, with a highlighted snippet' }),
  // Suites
  'testSuites.upsert': r({ ...api, method: 'POST', path: '/test-suites', rateGroup: 'testsWrite', status: 201, alsoOk: 200, summary: 'Create or update a suite (201 created, 200 updated)' }),
  'testSuites.createBatch': r({ ...api, method: 'POST', path: '/test-suites/batch', rateGroup: 'testsWrite', status: 201, summary: 'Create or update 1–500 suites, all or nothing' }),
  'testSuites.list': r({ ...api, method: 'GET', path: '/test-suites', rateGroup: 'testsRead', status: 200, summary: 'Suite tree of a run' }),
  // Flakiness
  'flakiness.list': r({ ...api, method: 'GET', path: '/flakiness', rateGroup: 'flakiness', status: 200, summary: 'Flaky test cases, highest score first' }),
  'flakiness.update': r({ ...api, method: 'POST', path: '/flakiness', rateGroup: 'flakiness', status: 200, summary: 'Quarantine or release a test case' }),
  'flakiness.events': r({ ...api, method: 'GET', path: '/flakiness/:testId/events', rateGroup: 'flakiness', status: 200, summary: 'Quarantine and release events of a test case, newest first' }),
  // Artifacts
  'artifacts.upload': r({ ...api, method: 'POST', path: '/upload', rateGroup: 'uploads', status: 201, summary: 'Upload an artifact (multipart/form-data)' }),
  'artifacts.list': r({ ...api, method: 'GET', path: '/artifacts', rateGroup: 'runsRead', status: 200, summary: 'Artifacts of a run or test with fresh signed URLs' }),
  // Projects and settings
  'projects.list': r({ ...api, method: 'GET', path: '/projects', rateGroup: 'projectsTeams', status: 200, summary: 'Projects of a team' }),
  'projects.create': r({ ...api, method: 'POST', path: '/projects', rateGroup: 'projectsTeams', status: 201, summary: 'Create a project' }),
  'projects.get': r({ ...api, method: 'GET', path: '/projects/:id', rateGroup: 'projectsTeams', status: 200, summary: 'Get a project' }),
  'projects.update': r({ ...api, method: 'PATCH', path: '/projects/:id', rateGroup: 'projectsTeams', status: 200, summary: 'Rename a project or change its settings' }),
  'projects.delete': r({ ...api, method: 'DELETE', path: '/projects/:id', rateGroup: 'projectsTeams', status: 200, summary: 'Delete a project and everything it owns' }),
  'projects.shardPlan': r({ ...api, method: 'GET', path: '/projects/:id/shard-plan', rateGroup: 'testsRead', status: 200, summary: 'The suite\'s test files split into shards of about equal duration, from recent runs' }),
  'projects.getSettings': r({ ...api, method: 'GET', path: '/projects/:id/settings', rateGroup: 'projectsTeams', status: 200, summary: 'Project settings' }),
  'projects.updateSettings': r({ ...api, method: 'PATCH', path: '/projects/:id/settings', rateGroup: 'projectsTeams', status: 200, summary: 'Change project settings' }),
  // Teams, members, invitations
  'teams.list': r({ ...api, auth: 'user', method: 'GET', path: '/teams', rateGroup: 'projectsTeams', status: 200, summary: 'Teams the caller belongs to' }),
  'teams.create': r({ ...api, auth: 'user', method: 'POST', path: '/teams', rateGroup: 'projectsTeams', status: 201, summary: 'Create a team; the caller becomes owner' }),
  'teams.update': r({ ...api, auth: 'user', method: 'PATCH', path: '/teams/:id', rateGroup: 'projectsTeams', status: 200, summary: 'Rename a team' }),
  'teams.delete': r({ ...api, auth: 'user', method: 'DELETE', path: '/teams/:id', rateGroup: 'projectsTeams', status: 200, summary: 'Delete a team and all its projects' }),
  'members.list': r({ ...api, auth: 'user', method: 'GET', path: '/team-members', rateGroup: 'projectsTeams', status: 200, summary: 'Members of a team' }),
  'members.invite': r({ ...api, auth: 'user', method: 'POST', path: '/team-members', rateGroup: 'projectsTeams', status: 201, summary: 'Invite someone by e-mail' }),
  'members.update': r({ ...api, auth: 'user', method: 'PATCH', path: '/team-members/:id', rateGroup: 'projectsTeams', status: 200, errors: [409], summary: "Change a member's role" }),
  'members.remove': r({ ...api, auth: 'user', method: 'DELETE', path: '/team-members/:id', rateGroup: 'projectsTeams', status: 200, errors: [409], summary: 'Remove a member from a team' }),
  'invitations.list': r({ ...api, auth: 'user', method: 'GET', path: '/invitations', rateGroup: 'projectsTeams', status: 200, summary: 'Invitations of a team' }),
  'invitations.accept': r({ ...api, auth: 'user', method: 'POST', path: '/invitations/accept', rateGroup: 'projectsTeams', status: 200, summary: 'Accept an invitation sent to your e-mail' }),
  'invitations.revoke': r({ ...api, auth: 'user', method: 'DELETE', path: '/invitations/:id', rateGroup: 'projectsTeams', status: 200, errors: [409], summary: 'Revoke a pending invitation' }),
  // API keys
  'apiKeys.list': r({ ...api, method: 'GET', path: '/api-keys', rateGroup: 'keysWebhooks', status: 200, summary: 'API keys of a project (masked)' }),
  'apiKeys.create': r({ ...api, auth: 'user', method: 'POST', path: '/api-keys', rateGroup: 'keysWebhooks', status: 201, summary: 'Create an API key; the full key is returned only here' }),
  'apiKeys.update': r({ ...api, auth: 'user', method: 'PATCH', path: '/api-keys/:id', rateGroup: 'keysWebhooks', status: 200, summary: 'Activate or deactivate an API key' }),
  'apiKeys.delete': r({ ...api, auth: 'user', method: 'DELETE', path: '/api-keys/:id', rateGroup: 'keysWebhooks', status: 200, summary: 'Delete an API key' }),
  // Webhooks
  'webhooks.list': r({ ...api, method: 'GET', path: '/webhooks', rateGroup: 'keysWebhooks', status: 200, summary: 'Webhooks of a project' }),
  'webhooks.create': r({ ...api, method: 'POST', path: '/webhooks', rateGroup: 'keysWebhooks', status: 201, summary: 'Create a webhook' }),
  'webhooks.get': r({ ...api, method: 'GET', path: '/webhooks/:id', rateGroup: 'keysWebhooks', status: 200, summary: 'Get a webhook' }),
  'webhooks.update': r({ ...api, method: 'PATCH', path: '/webhooks/:id', rateGroup: 'keysWebhooks', status: 200, summary: 'Update a webhook' }),
  'webhooks.delete': r({ ...api, method: 'DELETE', path: '/webhooks/:id', rateGroup: 'keysWebhooks', status: 200, summary: 'Delete a webhook' }),
  'webhooks.deliveries': r({ ...api, method: 'GET', path: '/webhooks/:id/deliveries', rateGroup: 'keysWebhooks', status: 200, summary: 'Delivery log of a webhook, newest first' }),
  'webhooks.test': r({ ...api, method: 'POST', path: '/webhooks/:id/test', rateGroup: 'keysWebhooks', status: 201, summary: 'Queue a ping delivery' }),
  // Identity
  me: r({ ...api, method: 'GET', path: '/me', rateGroup: 'none', status: 200, summary: 'Who the caller is' }),
  // Accounts (on {app_url})
  'auth.signup': r({ ...app, method: 'POST', path: '/auth/signup', status: 201, summary: 'Create an account; a verification link is mailed' }),
  'auth.verifyEmail': r({ ...app, method: 'POST', path: '/auth/verify-email', status: 200, summary: 'Verify an e-mail address with the mailed token' }),
  'auth.login': r({ ...app, method: 'POST', path: '/auth/login', status: 200, summary: 'Sign in; sets the session cookie' }),
  'auth.logout': r({ ...app, auth: 'user', method: 'POST', path: '/auth/logout', status: 200, summary: 'Sign out; ends the session' }),
  'auth.forgotPassword': r({ ...app, method: 'POST', path: '/auth/forgot-password', status: 200, summary: 'Mail a password reset link (same answer for unknown e-mails)' }),
  'auth.resetPassword': r({ ...app, method: 'POST', path: '/auth/reset-password', status: 200, summary: 'Set a new password with a reset token; other sessions end' }),
  'auth.me': r({ ...app, auth: 'user', rateGroup: 'none', method: 'GET', path: '/auth/me', status: 200, summary: 'The signed-in user and their teams' }),
  'auth.onboarding': r({ ...app, auth: 'user', method: 'POST', path: '/auth/onboarding', status: 201, summary: 'Create the first team and project of a verified user' }),
} as const satisfies Record<string, RouteDef>;
