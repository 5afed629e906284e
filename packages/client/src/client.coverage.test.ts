import { http, HttpResponse } from 'msw';
import { describe, expect, it } from 'vitest';
import { endpoints, operationIds, TestReportClient, type OperationId } from './index.js';
import { MOCK_URL, mockClient, useMockApi } from './testing/mockApi.js';

const { server, seen } = useMockApi();

/**
 * One SDK call per operation of the contract. Typed as a Record over every OperationId, so a new
 * operation in endpoints.ts fails to compile here until the SDK has a method for it.
 */
const CALLS: Record<OperationId, (c: TestReportClient) => Promise<unknown>> = {
  'runs.create': (c) => c.runs.create({ projectId: 'p', status: 'running' }),
  'runs.list': (c) => c.runs.list({ projectId: 'p' }),
  'runs.get': (c) => c.runs.get('x'),
  'runs.update': (c) => c.runs.update('x', { status: 'passed' }),
  'runs.shards': (c) => c.runs.shards('x'),
  'runs.complete': (c) => c.runs.complete('x'),
  'runs.cancel': (c) => c.runs.cancel('x'),
  'runs.delete': (c) => c.runs.delete('x'),
  'runs.summary': (c) => c.runs.summary('x', { base: 'main' }),
  'errors.list': (c) => c.errors.list({ projectId: 'p', branch: 'main' }),
  'errors.get': (c) => c.errors.get('x', { projectId: 'p' }),
  'insights': (c) => c.insights.get({ projectId: 'p', days: 7, branch: 'main', owner: '@acme/web', limit: 10 }),
  'search': (c) => c.search.query({ projectId: 'p', q: 'ECONNRESET', in: 'errors,output' }),
  'runs.compare': (c) => c.runs.compare('x', 'y', { limit: 5 }),
  'runs.baselines': (c) => c.runs.baselines('x'),
  'tests.create': (c) => c.tests.create({ runId: 'r', projectId: 'p', title: 't', fullTitle: 't', status: 'passed', duration: 1 }),
  'tests.createBatch': (c) => c.tests.createBatch([]),
  'tests.list': (c) => c.tests.list({ projectId: 'p' }),
  'tests.get': (c) => c.tests.get('x'),
  'tests.steps': (c) => c.tests.steps('x'),
  'tests.history': (c) => c.tests.history('x'),
  'tests.snapshots': (c) => c.tests.snapshots('x'),
  'tests.acceptSnapshots': (c) => c.tests.acceptSnapshots('x', { names: ['a'] }),
  'tests.unacceptSnapshots': (c) => c.tests.unacceptSnapshots('x'),
  'testSuites.upsert': (c) => c.testSuites.upsert({ runId: 'r', projectId: 'p', title: 's' }),
  'testSuites.createBatch': (c) => c.testSuites.createBatch([{ runId: 'r', projectId: 'p', title: 's' }]),
  'testSuites.list': (c) => c.testSuites.list({ runId: 'r', projectId: 'p' }),
  'flakiness.list': (c) => c.flakiness.list({ projectId: 'p' }),
  'flakiness.update': (c) => c.flakiness.quarantine('x', 'p'),
  'flakiness.events': (c) => c.flakiness.events('x', 'p'),
  'artifacts.upload': (c) => c.artifacts.upload({ file: Buffer.from('x'), fileName: 'a.png', type: 'screenshot', runId: 'r', projectId: 'p' }),
  'artifacts.list': (c) => c.artifacts.list({ runId: 'r' }),
  'projects.list': (c) => c.projects.list({ teamId: 't' }),
  'projects.create': (c) => c.projects.create({ name: 'n', teamId: 't' }),
  'projects.get': (c) => c.projects.get('x'),
  'projects.update': (c) => c.projects.update('x', { name: 'n' }),
  'projects.delete': (c) => c.projects.delete('x'),
  'projects.getSettings': (c) => c.projects.getSettings('x'),
  'projects.shardPlan': (c) => c.projects.shardPlan('x', { total: 2 }),
  'projects.updateSettings': (c) => c.projects.updateSettings('x', { dataRetentionDays: 7 }),
  'teams.list': (c) => c.teams.list(),
  'teams.create': (c) => c.teams.create({ name: 'n' }),
  'teams.update': (c) => c.teams.update('x', { name: 'n' }),
  'teams.delete': (c) => c.teams.delete('x'),
  'members.list': (c) => c.members.list({ teamId: 't' }),
  'members.invite': (c) => c.members.invite({ teamId: 't', email: 'a@b.test', role: 'member' }),
  'members.update': (c) => c.members.update('x', { role: 'admin' }),
  'members.remove': (c) => c.members.remove('x'),
  'invitations.list': (c) => c.invitations.list({ teamId: 't' }),
  'invitations.accept': (c) => c.invitations.accept({ token: 'tok' }),
  'invitations.revoke': (c) => c.invitations.revoke('x'),
  'apiKeys.list': (c) => c.apiKeys.list({ projectId: 'p' }),
  'apiKeys.create': (c) => c.apiKeys.create({ projectId: 'p', name: 'n' }),
  'apiKeys.update': (c) => c.apiKeys.update('x', { isActive: false }),
  'apiKeys.delete': (c) => c.apiKeys.delete('x'),
  'webhooks.list': (c) => c.webhooks.list({ projectId: 'p' }),
  'webhooks.create': (c) => c.webhooks.create({ projectId: 'p', url: 'https://h.test', events: ['run.completed'] }),
  'webhooks.get': (c) => c.webhooks.get('x'),
  'webhooks.update': (c) => c.webhooks.update('x', { isActive: false }),
  'webhooks.delete': (c) => c.webhooks.delete('x'),
  'webhooks.deliveries': (c) => c.webhooks.deliveries('x'),
  'webhooks.test': (c) => c.webhooks.test('x'),
  me: (c) => c.me(),
  'auth.signup': (c) => c.auth.signup({ email: 'a@b.test', password: 'password1' }),
  'auth.verifyEmail': (c) => c.auth.verifyEmail({ token: 'tok' }),
  'auth.login': (c) => c.auth.login({ email: 'a@b.test', password: 'password1' }),
  'auth.logout': (c) => c.auth.logout(),
  'auth.forgotPassword': (c) => c.auth.forgotPassword({ email: 'a@b.test' }),
  'auth.resetPassword': (c) => c.auth.resetPassword({ token: 'tok', password: 'password1' }),
  'auth.me': (c) => c.auth.me(),
  'auth.onboarding': (c) => c.auth.onboarding({ teamName: 't', projectName: 'p' }),
};

describe('a method for every operation', () => {
  it.each(operationIds)('%s goes to the method, path and base of the endpoints table', async (op) => {
    server.use(http.all('*', () => HttpResponse.json({}, { headers: { 'Set-Cookie': 'testreport_session=s1; Path=/; HttpOnly' } })));
    await CALLS[op](mockClient({ sessionCookie: 'tok' }));
    const def = endpoints[op];
    const expectedPath = (def.base === 'api' ? '/api/v1' : '') + def.path.replace(/:\w+/g, 'x');
    expect(seen).toHaveLength(1);
    const url = new URL(seen[0]!.url);
    expect(`${seen[0]!.method} ${url.origin}${url.pathname}`).toBe(`${def.method} ${MOCK_URL}${expectedPath}`);
    expect(seen[0]!.headers.has('idempotency-key')).toBe(def.method === 'POST');
  });
});
