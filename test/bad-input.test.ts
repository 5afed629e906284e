/**
 * Bad input on every JSON body of the contract: malformed JSON, each required field missing, and
 * each top-level field with a wrong type → 400 VALIDATION_ERROR naming the field. Required fields
 * and types are read from the same schemas the server validates with, so a new field is covered.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { endpoints, operationIds, type EndpointDef, type OperationId } from '@testreport/contract';
import { startTestServer, type TestServer } from '@testreport/server/testing';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(async () => {
  await t?.close();
});

const ID = '01a20000-0000-7000-8000-000000000000';
const aTest = () => ({ runId: ID, projectId: ID, title: 't', fullTitle: 'a > t', status: 'passed', duration: 1 });

/** A valid body for every operation that takes one. Typed by operation: a new body endpoint must be added here. */
const VALID: { [K in OperationId]: (typeof endpoints)[K] extends { body: z.ZodType } ? Record<string, unknown> : null } = {
  'runs.create': { projectId: ID, status: 'running' },
  'runs.list': null,
  'runs.get': null,
  'runs.update': { status: 'passed', totalTests: 1 },
  'runs.shards': null,
  'runs.complete': null,
  'runs.cancel': null,
  'runs.delete': null,
  'runs.summary': null,
  'runs.compare': null,
  'runs.baselines': null,
  'errors.list': null,
  'errors.get': null,
  search: null,
  insights: null,
  'tests.create': aTest(),
  'tests.createBatch': { tests: [aTest(), aTest()] },
  'tests.list': null,
  'tests.get': null,
  'tests.steps': null,
  'tests.history': null,
  'tests.snapshots': null,
  'tests.acceptSnapshots': { names: ['a'] },
  'tests.unacceptSnapshots': { names: ['a'] },
  'testSuites.upsert': { runId: ID, projectId: ID, title: 'suite' },
  'testSuites.createBatch': { suites: [{ runId: ID, projectId: ID, title: 'suite' }, { runId: ID, projectId: ID, title: 'child', parentIndex: 0 }] },
  'testSuites.list': null,
  'flakiness.list': null,
  'flakiness.update': { testId: ID, projectId: ID, isQuarantined: true },
  'flakiness.events': null,
  'artifacts.upload': null,
  'artifacts.list': null,
  'projects.list': null,
  'projects.create': { name: 'p', teamId: ID },
  'projects.get': null,
  'projects.update': { name: 'p' },
  'projects.delete': null,
  'projects.getSettings': null,
  'projects.shardPlan': null,
  'projects.updateSettings': { dataRetentionDays: 10 },
  'teams.list': null,
  'teams.create': { name: 't' },
  'teams.update': { name: 't' },
  'teams.delete': null,
  'members.list': null,
  'members.invite': { teamId: ID, email: 'a@example.test', role: 'member' },
  'members.update': { role: 'member' },
  'members.remove': null,
  'invitations.list': null,
  'invitations.accept': { token: 'tok' },
  'invitations.revoke': null,
  'apiKeys.list': null,
  'apiKeys.create': { projectId: ID, name: 'k' },
  'apiKeys.update': { isActive: true },
  'apiKeys.delete': null,
  'webhooks.list': null,
  'webhooks.create': { projectId: ID, url: 'https://hooks.example.test/x', events: ['run.completed'] },
  'webhooks.get': null,
  'webhooks.update': { url: 'https://hooks.example.test/y' },
  'webhooks.delete': null,
  'webhooks.deliveries': null,
  'webhooks.test': null,
  me: null,
  'auth.signup': { email: 'new@example.test', password: 'long enough password' },
  'auth.verifyEmail': { token: 'tok' },
  'auth.login': { email: 'new@example.test', password: 'whatever' },
  'auth.logout': null,
  'auth.forgotPassword': { email: 'new@example.test' },
  'auth.resetPassword': { token: 'tok', password: 'long enough password' },
  'auth.me': null,
  'auth.onboarding': { teamName: 'T', projectName: 'P' },
};

function send(op: OperationId, body: string) {
  const def: EndpointDef = endpoints[op];
  const path = def.path.replace(':id', ID);
  const headers: Record<string, string> = { 'Content-Type': 'application/json' };
  if (def.auth === 'user') headers.Cookie = t.owner.cookie;
  else if (def.auth === 'any') headers['X-API-Key'] = t.apiKey;
  const url = (def.base === 'app' ? t.url : t.baseUrl) + path;
  return fetch(url, { method: def.method, headers, body }).then(async (r) => ({ status: r.status, body: (await r.json()) as any }));
}

/** A value of the wrong JSON type for a property's JSON Schema. */
function wrongValue(schema: any): unknown {
  const types: string[] = schema.anyOf ? schema.anyOf.map((s: any) => s.type) : [schema.type];
  if (types.includes('string')) return 12345;
  if (types.includes('number') || types.includes('integer')) return 'not-a-number';
  if (types.includes('boolean')) return 'yes';
  if (types.includes('array')) return 'not-an-array';
  return 'not-an-object';
}

const bodyOps = operationIds.filter((op) => 'body' in endpoints[op]);

describe('bad input gets a 400 naming the field', () => {
  it('every operation with a JSON body has a valid sample here', () => {
    for (const op of bodyOps) expect(VALID[op], op).not.toBeNull();
  });

  for (const op of bodyOps) {
    const def = endpoints[op] as EndpointDef & { body: z.ZodType };
    const json = z.toJSONSchema(def.body, { io: 'input', unrepresentable: 'any' }) as { properties: Record<string, unknown>; required?: string[] };

    it(`${op}: malformed JSON`, async () => {
      const res = await send(op, '{"oops": ');
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({ code: 'VALIDATION_ERROR', details: { field: 'body', reason: 'invalid_type' } });
    });

    for (const field of json.required ?? []) {
      it(`${op}: missing ${field}`, async () => {
        const body = { ...VALID[op] };
        delete body[field];
        const res = await send(op, JSON.stringify(body));
        expect(res.status).toBe(400);
        expect(res.body.error).toMatchObject({ code: 'VALIDATION_ERROR', details: { field, reason: 'required' } });
      });
    }

    for (const [field, schema] of Object.entries(json.properties)) {
      it(`${op}: wrong type for ${field}`, async () => {
        const res = await send(op, JSON.stringify({ ...VALID[op], [field]: wrongValue(schema) }));
        expect(res.status).toBe(400);
        expect(res.body.error.code).toBe('VALIDATION_ERROR');
        expect(res.body.error.details.field).toBe(field);
        expect(['invalid_type', 'invalid_value']).toContain(res.body.error.details.reason);
      });
    }
  }

  it('names the index and field of a bad test inside a batch', async () => {
    const tests = Array.from({ length: 500 }, aTest);
    (tests[137] as Record<string, unknown>).status = 'exploded';
    const res = await send('tests.createBatch', JSON.stringify({ tests }));
    expect(res.status).toBe(400);
    expect(res.body.error.details).toMatchObject({ field: 'tests[137].status', reason: 'invalid_value' });
  });

  it('refuses negative counts, unknown enum values and out-of-range paging', async () => {
    expect((await send('runs.update', JSON.stringify({ passedTests: -1 }))).body.error.details).toMatchObject({ field: 'passedTests', reason: 'out_of_range' });
    expect((await send('runs.create', JSON.stringify({ projectId: ID, status: 'cancelled' }))).body.error.details).toMatchObject({ field: 'status', reason: 'invalid_value' });
    const page = await t.api('GET', `/runs?projectId=${t.projectId}&limit=501`, { auth: t.apiKey });
    expect(page.status).toBe(400);
    expect(page.body.error.details).toMatchObject({ field: 'limit', reason: 'out_of_range' });
    const missing = await t.api('GET', '/runs', { auth: t.apiKey });
    expect(missing.body.error.details).toMatchObject({ field: 'projectId', reason: 'required' });
  });
});
