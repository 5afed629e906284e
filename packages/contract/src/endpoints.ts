import { z } from 'zod';
import * as A from './artifacts.js';
import * as B from './baselines.js';
import * as C from './compare.js';
import * as E from './errorGroups.js';
import * as Auth from './auth.js';
import * as F from './flakiness.js';
import * as K from './apiKeys.js';
import * as M from './me.js';
import * as P from './projects.js';
import * as R from './runs.js';
import * as RS from './runSummary.js';
import * as S from './suites.js';
import * as Se from './search.js';
import * as Ins from './insights.js';
import * as SP from './shardPlan.js';
import * as T from './tests.js';
import * as Tm from './teams.js';
import * as W from './webhooks.js';
import { id, idParam } from './common.js';
import { routes, type RouteDef } from './routes.js';

export interface EndpointDef extends RouteDef {
  params?: z.ZodType;
  query?: z.ZodType;
  body?: z.ZodType;
  /** multipart/form-data bodies are parsed as streams by the route itself. */
  multipart?: z.ZodType;
  response: z.ZodType;
}

const e = <D extends EndpointDef>(d: D) => d;

/** The contract: every route of `routes.ts` with its schemas. Keys are operation ids. */
export const endpoints = {
  // Runs
  'runs.create': e({ ...routes['runs.create'], body: R.runCreate, response: R.runCreated }),
  'runs.list': e({ ...routes['runs.list'], query: R.runListQuery, response: R.runList }),
  'runs.get': e({ ...routes['runs.get'], params: idParam, response: R.run }),
  'runs.update': e({ ...routes['runs.update'], params: idParam, body: R.runUpdate, response: R.runUpdated }),
  'runs.shards': e({ ...routes['runs.shards'], params: idParam, response: R.shardList }),
  'runs.complete': e({ ...routes['runs.complete'], params: idParam, response: R.run }),
  'runs.cancel': e({ ...routes['runs.cancel'], params: idParam, response: R.run }),
  'runs.delete': e({ ...routes['runs.delete'], params: idParam, response: R.runDeleted }),
  'runs.summary': e({ ...routes['runs.summary'], params: idParam, query: RS.runSummaryQuery, response: RS.runSummary }),
  'runs.compare': e({ ...routes['runs.compare'], params: idParam, query: C.runCompareQuery, response: C.runComparison }),
  'runs.baselines': e({ ...routes['runs.baselines'], params: idParam, response: B.baselineList }),
  // Tests
  'tests.create': e({ ...routes['tests.create'], body: T.testCreate, response: T.testCreated }),
  'tests.createBatch': e({ ...routes['tests.createBatch'], body: T.testBatchCreate, response: T.testBatchCreated }),
  'tests.list': e({ ...routes['tests.list'], query: T.testListQuery, response: T.testList }),
  'tests.get': e({ ...routes['tests.get'], params: idParam, response: T.testDetail }),
  'tests.steps': e({ ...routes['tests.steps'], params: idParam, query: T.testStepsQuery, response: T.testSteps }),
  'tests.history': e({ ...routes['tests.history'], params: idParam, response: T.testHistory }),
  'tests.snapshots': e({ ...routes['tests.snapshots'], params: idParam, response: B.snapshotList }),
  'tests.acceptSnapshots': e({ ...routes['tests.acceptSnapshots'], params: idParam, body: B.snapshotAccept, response: B.snapshotList }),
  'tests.unacceptSnapshots': e({ ...routes['tests.unacceptSnapshots'], params: idParam, body: B.snapshotAccept, response: B.snapshotList }),
  // Error groups
  'errors.list': e({ ...routes['errors.list'], query: E.errorListQuery, response: E.errorGroupList }),
  'errors.get': e({ ...routes['errors.get'], params: E.fingerprintParam, query: E.errorGroupQuery, response: E.errorGroupDetail }),
  'insights': e({ ...routes['insights'], query: Ins.insightsQuery, response: Ins.insights }),
  'search': e({ ...routes['search'], query: Se.searchQuery, response: Se.searchResults }),
  // Suites
  'testSuites.upsert': e({ ...routes['testSuites.upsert'], body: S.suiteUpsert, response: S.suite }),
  'testSuites.createBatch': e({ ...routes['testSuites.createBatch'], body: S.suiteBatchUpsert, response: S.suiteBatchResult }),
  'testSuites.list': e({ ...routes['testSuites.list'], query: S.suiteListQuery, response: S.suiteTree }),
  // Flakiness
  'flakiness.list': e({ ...routes['flakiness.list'], query: F.flakinessQuery, response: F.flakinessList }),
  'flakiness.update': e({ ...routes['flakiness.update'], body: F.quarantineUpdate, response: F.quarantineResult }),
  'flakiness.events': e({ ...routes['flakiness.events'], params: z.object({ testId: id }), query: F.quarantineEventsQuery, response: F.quarantineEventList }),
  // Artifacts
  'artifacts.upload': e({ ...routes['artifacts.upload'], multipart: A.uploadFields, response: A.artifact }),
  'artifacts.list': e({ ...routes['artifacts.list'], query: A.artifactListQuery, response: A.artifactList }),
  // Projects and settings
  'projects.list': e({ ...routes['projects.list'], query: P.projectListQuery, response: P.projectList }),
  'projects.create': e({ ...routes['projects.create'], body: P.projectCreate, response: P.project }),
  'projects.get': e({ ...routes['projects.get'], params: idParam, response: P.project }),
  'projects.update': e({ ...routes['projects.update'], params: idParam, body: P.projectUpdate, response: P.projectUpdated }),
  'projects.delete': e({ ...routes['projects.delete'], params: idParam, response: P.projectDeleted }),
  'projects.shardPlan': e({ ...routes['projects.shardPlan'], params: idParam, query: SP.shardPlanQuery, response: SP.shardPlan }),
  'projects.getSettings': e({ ...routes['projects.getSettings'], params: idParam, response: P.settings }),
  'projects.updateSettings': e({ ...routes['projects.updateSettings'], params: idParam, body: P.settingsUpdate, response: P.settings }),
  // Teams, members, invitations
  'teams.list': e({ ...routes['teams.list'], response: Tm.teamList }),
  'teams.create': e({ ...routes['teams.create'], body: Tm.teamCreate, response: Tm.team }),
  'teams.update': e({ ...routes['teams.update'], params: idParam, body: Tm.teamUpdate, response: Tm.teamUpdated }),
  'teams.delete': e({ ...routes['teams.delete'], params: idParam, response: Tm.teamDeleted }),
  'members.list': e({ ...routes['members.list'], query: Tm.memberListQuery, response: Tm.memberList }),
  'members.invite': e({ ...routes['members.invite'], body: Tm.invitationCreate, response: Tm.invitation }),
  'members.update': e({ ...routes['members.update'], params: idParam, body: Tm.memberUpdate, response: Tm.member }),
  'members.remove': e({ ...routes['members.remove'], params: idParam, response: Tm.memberDeleted }),
  'invitations.list': e({ ...routes['invitations.list'], query: Tm.invitationListQuery, response: Tm.invitationList }),
  'invitations.accept': e({ ...routes['invitations.accept'], body: Tm.invitationAccept, response: Tm.invitationAccepted }),
  'invitations.revoke': e({ ...routes['invitations.revoke'], params: idParam, response: Tm.invitationRevoked }),
  // API keys
  'apiKeys.list': e({ ...routes['apiKeys.list'], query: K.apiKeyListQuery, response: K.apiKeyList }),
  'apiKeys.create': e({ ...routes['apiKeys.create'], body: K.apiKeyCreate, response: K.apiKeyCreated }),
  'apiKeys.update': e({ ...routes['apiKeys.update'], params: idParam, body: K.apiKeyUpdate, response: K.apiKeyUpdated }),
  'apiKeys.delete': e({ ...routes['apiKeys.delete'], params: idParam, response: K.apiKeyDeleted }),
  // Webhooks
  'webhooks.list': e({ ...routes['webhooks.list'], query: W.webhookListQuery, response: W.webhookList }),
  'webhooks.create': e({ ...routes['webhooks.create'], body: W.webhookCreate, response: W.webhook }),
  'webhooks.get': e({ ...routes['webhooks.get'], params: idParam, response: W.webhook }),
  'webhooks.update': e({ ...routes['webhooks.update'], params: idParam, body: W.webhookUpdate, response: W.webhook }),
  'webhooks.delete': e({ ...routes['webhooks.delete'], params: idParam, response: W.webhookDeleted }),
  'webhooks.deliveries': e({ ...routes['webhooks.deliveries'], params: idParam, query: W.deliveryListQuery, response: W.deliveryList }),
  'webhooks.test': e({ ...routes['webhooks.test'], params: idParam, response: W.webhookTestResult }),
  // Identity
  me: e({ ...routes['me'], response: M.me }),
  // Accounts (on {app_url})
  'auth.signup': e({ ...routes['auth.signup'], body: Auth.signup, response: Auth.signupResult }),
  'auth.verifyEmail': e({ ...routes['auth.verifyEmail'], body: Auth.tokenBody, response: Auth.message }),
  'auth.login': e({ ...routes['auth.login'], body: Auth.login, response: Auth.loginResult }),
  'auth.logout': e({ ...routes['auth.logout'], response: Auth.message }),
  'auth.forgotPassword': e({ ...routes['auth.forgotPassword'], body: Auth.forgotPassword, response: Auth.message }),
  'auth.resetPassword': e({ ...routes['auth.resetPassword'], body: Auth.resetPassword, response: Auth.message }),
  'auth.me': e({ ...routes['auth.me'], response: Auth.authMe }),
  'auth.onboarding': e({ ...routes['auth.onboarding'], body: Auth.onboarding, response: Auth.onboardingResult }),
} as const satisfies { [K in keyof typeof routes]: EndpointDef };

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
