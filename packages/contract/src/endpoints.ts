import { z } from 'zod';
import * as A from './artifacts.js';
import * as Auth from './auth.js';
import * as F from './flakiness.js';
import * as K from './apiKeys.js';
import * as M from './me.js';
import * as P from './projects.js';
import * as R from './runs.js';
import * as RS from './runSummary.js';
import * as S from './suites.js';
import * as SP from './shardPlan.js';
import * as T from './tests.js';
import * as Tm from './teams.js';
import * as W from './webhooks.js';
import { idParam } from './common.js';

/** Rate-limit groups of spec part 8 and decisions §9. `none` is not limited; `auth` is per client address. */
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

export interface EndpointDef {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  /** Hono-style path, relative to {base_url} (base 'api') or {app_url} (base 'app'). */
  path: string;
  base: 'api' | 'app';
  auth: EndpointAuth;
  rateGroup: RateGroup;
  status: 200 | 201;
  summary: string;
  params?: z.ZodType;
  query?: z.ZodType;
  body?: z.ZodType;
  /** multipart/form-data bodies are parsed as streams by the route itself. */
  multipart?: z.ZodType;
  response: z.ZodType;
}

const e = <D extends EndpointDef>(d: D) => d;
const api = { base: 'api', auth: 'any' } as const;
const app = { base: 'app', auth: 'public', rateGroup: 'auth' } as const;

/** The contract: every endpoint the server serves and the SDK calls. Keys are operation ids. */
export const endpoints = {
  // Runs
  'runs.create': e({ ...api, method: 'POST', path: '/runs', rateGroup: 'runsWrite', status: 201, summary: 'Create a run', body: R.runCreate, response: R.runCreated }),
  'runs.list': e({ ...api, method: 'GET', path: '/runs', rateGroup: 'runsRead', status: 200, summary: 'List runs of a project, newest first', query: R.runListQuery, response: R.runList }),
  'runs.get': e({ ...api, method: 'GET', path: '/runs/:id', rateGroup: 'runsRead', status: 200, summary: 'Get a run', params: idParam, response: R.run }),
  'runs.update': e({ ...api, method: 'PATCH', path: '/runs/:id', rateGroup: 'runsWrite', status: 200, summary: 'Update status, counts and duration of a run', params: idParam, body: R.runUpdate, response: R.runUpdated }),
  'runs.shards': e({ ...api, method: 'GET', path: '/runs/:id/shards', rateGroup: 'runsRead', status: 200, summary: 'Every attempt of every shard of a CI-build run', params: idParam, response: R.shardList }),
  'runs.complete': e({ ...api, method: 'POST', path: '/runs/:id/complete', rateGroup: 'runsWrite', status: 200, summary: 'Finish a run now from what is stored', params: idParam, response: R.run }),
  'runs.cancel': e({ ...api, method: 'POST', path: '/runs/:id/cancel', rateGroup: 'runsWrite', status: 200, summary: 'Finish a run as cancelled', params: idParam, response: R.run }),
  'runs.delete': e({ ...api, method: 'DELETE', path: '/runs/:id', rateGroup: 'runsWrite', status: 200, summary: 'Delete a run with its tests, suites and artifacts', params: idParam, response: R.runDeleted }),
  'runs.summary': e({ ...api, method: 'GET', path: '/runs/:id/summary', rateGroup: 'runsRead', status: 200, summary: 'Counts, failures, new failures and fixed tests against a base branch, flaky and quarantined failures of a run', params: idParam, query: RS.runSummaryQuery, response: RS.runSummary }),
  // Tests
  'tests.create': e({ ...api, method: 'POST', path: '/tests', rateGroup: 'testsWrite', status: 201, summary: 'Store one test result', body: T.testCreate, response: T.testCreated }),
  'tests.createBatch': e({ ...api, method: 'POST', path: '/tests/batch', rateGroup: 'testsWrite', status: 201, summary: 'Store 1–500 test results, all or nothing', body: T.testBatchCreate, response: T.testBatchCreated }),
  'tests.list': e({ ...api, method: 'GET', path: '/tests', rateGroup: 'testsRead', status: 200, summary: 'List test results', query: T.testListQuery, response: T.testList }),
  'tests.get': e({ ...api, method: 'GET', path: '/tests/:id', rateGroup: 'testsRead', status: 200, summary: 'Get a test result', params: idParam, response: T.test }),
  'tests.steps': e({ ...api, method: 'GET', path: '/tests/:id/steps', rateGroup: 'testsRead', status: 200, summary: 'Steps of a test in execution order', params: idParam, response: T.testSteps }),
  'tests.history': e({ ...api, method: 'GET', path: '/tests/:id/history', rateGroup: 'testsRead', status: 200, summary: 'Last 20 results of the same test case, newest first', params: idParam, response: T.testHistory }),
  // Suites
  'testSuites.upsert': e({ ...api, method: 'POST', path: '/test-suites', rateGroup: 'testsWrite', status: 201, summary: 'Create or update a suite (201 created, 200 updated)', body: S.suiteUpsert, response: S.suite }),
  'testSuites.createBatch': e({ ...api, method: 'POST', path: '/test-suites/batch', rateGroup: 'testsWrite', status: 201, summary: 'Create or update 1–500 suites, all or nothing', body: S.suiteBatchUpsert, response: S.suiteBatchResult }),
  'testSuites.list': e({ ...api, method: 'GET', path: '/test-suites', rateGroup: 'testsRead', status: 200, summary: 'Suite tree of a run', query: S.suiteListQuery, response: S.suiteTree }),
  // Flakiness
  'flakiness.list': e({ ...api, method: 'GET', path: '/flakiness', rateGroup: 'flakiness', status: 200, summary: 'Flaky test cases, highest score first', query: F.flakinessQuery, response: F.flakinessList }),
  'flakiness.update': e({ ...api, method: 'POST', path: '/flakiness', rateGroup: 'flakiness', status: 200, summary: 'Quarantine or release a test case', body: F.quarantineUpdate, response: F.quarantineResult }),
  // Artifacts
  'artifacts.upload': e({ ...api, method: 'POST', path: '/upload', rateGroup: 'uploads', status: 201, summary: 'Upload an artifact (multipart/form-data)', multipart: A.uploadFields, response: A.artifact }),
  'artifacts.list': e({ ...api, method: 'GET', path: '/artifacts', rateGroup: 'runsRead', status: 200, summary: 'Artifacts of a run or test with fresh signed URLs', query: A.artifactListQuery, response: A.artifactList }),
  // Projects and settings
  'projects.list': e({ ...api, method: 'GET', path: '/projects', rateGroup: 'projectsTeams', status: 200, summary: 'Projects of a team', query: P.projectListQuery, response: P.projectList }),
  'projects.create': e({ ...api, method: 'POST', path: '/projects', rateGroup: 'projectsTeams', status: 201, summary: 'Create a project', body: P.projectCreate, response: P.project }),
  'projects.get': e({ ...api, method: 'GET', path: '/projects/:id', rateGroup: 'projectsTeams', status: 200, summary: 'Get a project', params: idParam, response: P.project }),
  'projects.update': e({ ...api, method: 'PATCH', path: '/projects/:id', rateGroup: 'projectsTeams', status: 200, summary: 'Rename a project or change its settings', params: idParam, body: P.projectUpdate, response: P.projectUpdated }),
  'projects.delete': e({ ...api, method: 'DELETE', path: '/projects/:id', rateGroup: 'projectsTeams', status: 200, summary: 'Delete a project and everything it owns', params: idParam, response: P.projectDeleted }),
  'projects.shardPlan': e({ ...api, method: 'GET', path: '/projects/:id/shard-plan', rateGroup: 'testsRead', status: 200, summary: 'The suite\'s test files split into shards of about equal duration, from recent runs', params: idParam, query: SP.shardPlanQuery, response: SP.shardPlan }),
  'projects.getSettings': e({ ...api, method: 'GET', path: '/projects/:id/settings', rateGroup: 'projectsTeams', status: 200, summary: 'Project settings', params: idParam, response: P.settings }),
  'projects.updateSettings': e({ ...api, method: 'PATCH', path: '/projects/:id/settings', rateGroup: 'projectsTeams', status: 200, summary: 'Change project settings', params: idParam, body: P.settingsUpdate, response: P.settings }),
  // Teams, members, invitations
  'teams.list': e({ ...api, auth: 'user', method: 'GET', path: '/teams', rateGroup: 'projectsTeams', status: 200, summary: 'Teams the caller belongs to', response: Tm.teamList }),
  'teams.create': e({ ...api, auth: 'user', method: 'POST', path: '/teams', rateGroup: 'projectsTeams', status: 201, summary: 'Create a team; the caller becomes owner', body: Tm.teamCreate, response: Tm.team }),
  'teams.update': e({ ...api, auth: 'user', method: 'PATCH', path: '/teams/:id', rateGroup: 'projectsTeams', status: 200, summary: 'Rename a team', params: idParam, body: Tm.teamUpdate, response: Tm.teamUpdated }),
  'teams.delete': e({ ...api, auth: 'user', method: 'DELETE', path: '/teams/:id', rateGroup: 'projectsTeams', status: 200, summary: 'Delete a team and all its projects', params: idParam, response: Tm.teamDeleted }),
  'members.list': e({ ...api, auth: 'user', method: 'GET', path: '/team-members', rateGroup: 'projectsTeams', status: 200, summary: 'Members of a team', query: Tm.memberListQuery, response: Tm.memberList }),
  'members.invite': e({ ...api, auth: 'user', method: 'POST', path: '/team-members', rateGroup: 'projectsTeams', status: 201, summary: 'Invite someone by e-mail', body: Tm.invitationCreate, response: Tm.invitation }),
  'members.update': e({ ...api, auth: 'user', method: 'PATCH', path: '/team-members/:id', rateGroup: 'projectsTeams', status: 200, summary: "Change a member's role", params: idParam, body: Tm.memberUpdate, response: Tm.member }),
  'members.remove': e({ ...api, auth: 'user', method: 'DELETE', path: '/team-members/:id', rateGroup: 'projectsTeams', status: 200, summary: 'Remove a member from a team', params: idParam, response: Tm.memberDeleted }),
  'invitations.list': e({ ...api, auth: 'user', method: 'GET', path: '/invitations', rateGroup: 'projectsTeams', status: 200, summary: 'Invitations of a team', query: Tm.invitationListQuery, response: Tm.invitationList }),
  'invitations.accept': e({ ...api, auth: 'user', method: 'POST', path: '/invitations/accept', rateGroup: 'projectsTeams', status: 200, summary: 'Accept an invitation sent to your e-mail', body: Tm.invitationAccept, response: Tm.invitationAccepted }),
  'invitations.revoke': e({ ...api, auth: 'user', method: 'DELETE', path: '/invitations/:id', rateGroup: 'projectsTeams', status: 200, summary: 'Revoke a pending invitation', params: idParam, response: Tm.invitationRevoked }),
  // API keys
  'apiKeys.list': e({ ...api, method: 'GET', path: '/api-keys', rateGroup: 'keysWebhooks', status: 200, summary: 'API keys of a project (masked)', query: K.apiKeyListQuery, response: K.apiKeyList }),
  'apiKeys.create': e({ ...api, auth: 'user', method: 'POST', path: '/api-keys', rateGroup: 'keysWebhooks', status: 201, summary: 'Create an API key; the full key is returned only here', body: K.apiKeyCreate, response: K.apiKeyCreated }),
  'apiKeys.update': e({ ...api, auth: 'user', method: 'PATCH', path: '/api-keys/:id', rateGroup: 'keysWebhooks', status: 200, summary: 'Activate or deactivate an API key', params: idParam, body: K.apiKeyUpdate, response: K.apiKeyUpdated }),
  'apiKeys.delete': e({ ...api, auth: 'user', method: 'DELETE', path: '/api-keys/:id', rateGroup: 'keysWebhooks', status: 200, summary: 'Delete an API key', params: idParam, response: K.apiKeyDeleted }),
  // Webhooks
  'webhooks.list': e({ ...api, method: 'GET', path: '/webhooks', rateGroup: 'keysWebhooks', status: 200, summary: 'Webhooks of a project', query: W.webhookListQuery, response: W.webhookList }),
  'webhooks.create': e({ ...api, method: 'POST', path: '/webhooks', rateGroup: 'keysWebhooks', status: 201, summary: 'Create a webhook', body: W.webhookCreate, response: W.webhook }),
  'webhooks.get': e({ ...api, method: 'GET', path: '/webhooks/:id', rateGroup: 'keysWebhooks', status: 200, summary: 'Get a webhook', params: idParam, response: W.webhook }),
  'webhooks.update': e({ ...api, method: 'PATCH', path: '/webhooks/:id', rateGroup: 'keysWebhooks', status: 200, summary: 'Update a webhook', params: idParam, body: W.webhookUpdate, response: W.webhook }),
  'webhooks.delete': e({ ...api, method: 'DELETE', path: '/webhooks/:id', rateGroup: 'keysWebhooks', status: 200, summary: 'Delete a webhook', params: idParam, response: W.webhookDeleted }),
  'webhooks.deliveries': e({ ...api, method: 'GET', path: '/webhooks/:id/deliveries', rateGroup: 'keysWebhooks', status: 200, summary: 'Delivery log of a webhook, newest first', params: idParam, query: W.deliveryListQuery, response: W.deliveryList }),
  'webhooks.test': e({ ...api, method: 'POST', path: '/webhooks/:id/test', rateGroup: 'keysWebhooks', status: 201, summary: 'Queue a ping delivery', params: idParam, response: W.webhookTestResult }),
  // Identity
  me: e({ ...api, method: 'GET', path: '/me', rateGroup: 'none', status: 200, summary: 'Who the caller is', response: M.me }),
  // Accounts (on {app_url})
  'auth.signup': e({ ...app, method: 'POST', path: '/auth/signup', status: 201, summary: 'Create an account; a verification link is mailed', body: Auth.signup, response: Auth.signupResult }),
  'auth.verifyEmail': e({ ...app, method: 'POST', path: '/auth/verify-email', status: 200, summary: 'Verify an e-mail address with the mailed token', body: Auth.tokenBody, response: Auth.message }),
  'auth.login': e({ ...app, method: 'POST', path: '/auth/login', status: 200, summary: 'Sign in; sets the session cookie', body: Auth.login, response: Auth.loginResult }),
  'auth.logout': e({ ...app, auth: 'user', method: 'POST', path: '/auth/logout', status: 200, summary: 'Sign out; ends the session', response: Auth.message }),
  'auth.forgotPassword': e({ ...app, method: 'POST', path: '/auth/forgot-password', status: 200, summary: 'Mail a password reset link (same answer for unknown e-mails)', body: Auth.forgotPassword, response: Auth.message }),
  'auth.resetPassword': e({ ...app, method: 'POST', path: '/auth/reset-password', status: 200, summary: 'Set a new password with a reset token; other sessions end', body: Auth.resetPassword, response: Auth.message }),
  'auth.me': e({ ...app, auth: 'user', rateGroup: 'none', method: 'GET', path: '/auth/me', status: 200, summary: 'The signed-in user and their teams', response: Auth.authMe }),
  'auth.onboarding': e({ ...app, auth: 'user', method: 'POST', path: '/auth/onboarding', status: 201, summary: 'Create the first team and project of a verified user', body: Auth.onboarding, response: Auth.onboardingResult }),
} as const satisfies Record<string, EndpointDef>;

export type Endpoints = typeof endpoints;
export type OperationId = keyof Endpoints;
type Out<S> = S extends z.ZodType ? z.output<S> : never;
type In<S> = S extends z.ZodType ? z.input<S> : undefined;
export type ResponseOf<K extends OperationId> = Out<Endpoints[K]['response']>;
export type BodyOf<K extends OperationId> = Endpoints[K] extends { body: infer B } ? In<B> : undefined;
export type ParsedBodyOf<K extends OperationId> = Endpoints[K] extends { body: infer B } ? Out<B> : undefined;
export type QueryOf<K extends OperationId> = Endpoints[K] extends { query: infer Q } ? In<Q> : undefined;
export type ParsedQueryOf<K extends OperationId> = Endpoints[K] extends { query: infer Q } ? Out<Q> : undefined;
export type ParamsOf<K extends OperationId> = Endpoints[K] extends { params: infer P } ? Out<P> : undefined;
export const operationIds = Object.keys(endpoints) as OperationId[];
