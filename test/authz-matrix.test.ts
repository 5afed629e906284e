/**
 * The authorization matrix of docs/decisions.md §6, tested over HTTP for every operation of the contract ×
 * {owner, admin, member, viewer, API key of the project, API key of another project, user of
 * another team, no auth}. The expectations below are written from docs/decisions.md §6 independently of
 * the server's policy table; `MATRIX` is typed by operation id and checked against the route table,
 * so a route added without an entry fails this test.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { endpoints, operationIds, type OperationId } from '@testreport/contract';
import { startTestServer, type TestServer, type TestUser } from '@testreport/server/testing';

type Who = 'owner' | 'admin' | 'member' | 'viewer' | 'keyA' | 'keyB' | 'outsider' | 'anon';
const EVERYONE: Who[] = ['owner', 'admin', 'member', 'viewer', 'keyA', 'keyB', 'outsider', 'anon'];
const USERS_IN_TEAM: Who[] = ['owner', 'admin', 'member', 'viewer'];

interface Req {
  method: string;
  path: string;
  body?: unknown;
  multipart?: FormData;
}
interface Case {
  /** Principals allowed by docs/decisions.md §6; everyone else is refused. */
  allow: Who[];
  /** How the scope is named: explicit projectId/teamId (out of reach → 403) or a resource id (→ 404). */
  scope: 'param' | 'resource' | 'none';
  /** Builds a fresh request (fresh resources, so deletes don't interfere). */
  build: (who: Who) => Promise<Req>;
  /** Status expected when allowed, if not the endpoint's success status. */
  okStatus?: number;
}

let t: TestServer;
let users: Record<'owner' | 'admin' | 'member' | 'viewer' | 'outsider', TestUser>;
let keyB: string;
let n = 0;
const uniq = () => `${Date.now().toString(36)}${++n}`;

const PNG = Buffer.from(
  '89504e470d0a1a0a0000000d4948445200000001000000010806000000' + '1f15c4890000000d49444154789c6360000002000100ffff03000006000557bfabd40000000049454e44ae426082',
  'hex',
);

async function ok<T = any>(p: Promise<{ status: number; body: any }>): Promise<T> {
  const r = await p;
  if (r.status >= 300) throw new Error(`setup failed: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body as T;
}
const asOwner = (method: string, path: string, body?: unknown) => ok(t.api(method, path, { auth: t.owner, body }));
const asKey = (method: string, path: string, body?: unknown) => ok(t.api(method, path, { auth: t.apiKey, body }));

const fresh = {
  run: async () => (await asKey('POST', '/runs', { projectId: t.projectId, status: 'running' })).id as string,
  test: async () => {
    const runId = await fresh.run();
    const r = await asKey('POST', '/tests', { runId, projectId: t.projectId, title: 'x', fullTitle: `m > x ${uniq()}`, status: 'passed', duration: 1 });
    return { runId, testId: r.id as string };
  },
  project: async () => (await asOwner('POST', '/projects', { name: `p-${uniq()}`, teamId: t.teamId })).id as string,
  apiKey: async () => (await asOwner('POST', '/api-keys', { projectId: t.projectId, name: `k-${uniq()}` })).id as string,
  webhook: async () =>
    (await asKey('POST', '/webhooks', { projectId: t.projectId, url: 'http://127.0.0.1:9/hook', events: ['run.completed'] })).id as string,
  member: async () => {
    const u = await t.createUser({ teamId: t.teamId, role: 'viewer' });
    const list = await asOwner('GET', `/team-members?teamId=${t.teamId}`);
    return list.data.find((m: { userId: string }) => m.userId === u.userId).id as string;
  },
  invitation: async () => (await asOwner('POST', '/team-members', { teamId: t.teamId, email: `inv-${uniq()}@example.test`, role: 'viewer' })).id as string,
  /** A team where owner/admin/member/viewer hold their usual roles. */
  team: async () => {
    const team = await asOwner('POST', '/teams', { name: `t-${uniq()}` });
    const db = t.server.services.deps.db;
    for (const role of ['admin', 'member', 'viewer'] as const) {
      await db.insertInto('team_members').values({ id: `m-${uniq()}`, team_id: team.id, user_id: users[role].userId, role, joined_at: new Date().toISOString() }).execute();
    }
    return team.id as string;
  },
};

/** The token mailed to `email` most recently (the outbox holds one JSON file per mail). */
function mailedToken(email: string): string {
  const dir = join(t.dataDir, 'outbox');
  const mails = readdirSync(dir)
    .sort()
    .map((f) => JSON.parse(readFileSync(join(dir, f), 'utf8')) as { to: string; text: string })
    .filter((m) => m.to === email);
  const m = /token=([A-Za-z0-9_\-.~%]+)/.exec(mails.at(-1)?.text ?? '');
  if (!m) throw new Error(`no token mailed to ${email}`);
  return decodeURIComponent(m[1]);
}

const READ: Who[] = ['owner', 'admin', 'member', 'viewer', 'keyA'];
const REPORT: Who[] = ['owner', 'admin', 'member', 'keyA'];
const ADMIN_OR_KEY: Who[] = ['owner', 'admin', 'keyA'];
const ADMIN: Who[] = ['owner', 'admin'];
const MEMBER_UP: Who[] = ['owner', 'admin', 'member'];
const ALL_USERS: Who[] = ['owner', 'admin', 'member', 'viewer', 'outsider'];

const MATRIX: Record<OperationId, Case | 'public'> = {
  'runs.create': { allow: REPORT, scope: 'param', build: async () => ({ method: 'POST', path: '/runs', body: { projectId: t.projectId, status: 'running' } }) },
  'runs.list': { allow: READ, scope: 'param', build: async () => ({ method: 'GET', path: `/runs?projectId=${t.projectId}` }) },
  'runs.get': { allow: READ, scope: 'resource', build: async () => ({ method: 'GET', path: `/runs/${await fresh.run()}` }) },
  'runs.update': { allow: REPORT, scope: 'resource', build: async () => ({ method: 'PATCH', path: `/runs/${await fresh.run()}`, body: { status: 'passed' } }) },
  'runs.summary': { allow: READ, scope: 'resource', build: async () => ({ method: 'GET', path: `/runs/${await fresh.run()}/summary` }) },
  'runs.compare': { allow: READ, scope: 'resource', build: async () => { const id = await fresh.run(); return { method: 'GET', path: `/runs/${id}/compare?base=${id}` }; } },
  'runs.baselines': { allow: READ, scope: 'resource', build: async () => ({ method: 'GET', path: `/runs/${await fresh.run()}/baselines` }) },
  'runs.shards': { allow: READ, scope: 'resource', build: async () => ({ method: 'GET', path: `/runs/${await fresh.run()}/shards` }) },
  'runs.complete': { allow: REPORT, scope: 'resource', build: async () => ({ method: 'POST', path: `/runs/${await fresh.run()}/complete` }) },
  'runs.cancel': { allow: REPORT, scope: 'resource', build: async () => ({ method: 'POST', path: `/runs/${await fresh.run()}/cancel` }) },
  'runs.delete': { allow: ADMIN_OR_KEY, scope: 'resource', build: async () => ({ method: 'DELETE', path: `/runs/${await fresh.run()}` }) },
  'tests.create': {
    allow: REPORT,
    scope: 'param',
    build: async () => ({ method: 'POST', path: '/tests', body: { runId: await fresh.run(), projectId: t.projectId, title: 't', fullTitle: 'a > t', status: 'passed', duration: 3 } }),
  },
  'tests.createBatch': {
    allow: REPORT,
    scope: 'param',
    build: async () => ({ method: 'POST', path: '/tests/batch', body: { tests: [{ runId: await fresh.run(), projectId: t.projectId, title: 't', fullTitle: 'a > t', status: 'passed', duration: 3 }] } }),
  },
  'tests.list': { allow: READ, scope: 'param', build: async () => ({ method: 'GET', path: `/tests?projectId=${t.projectId}` }) },
  'tests.get': { allow: READ, scope: 'resource', build: async () => ({ method: 'GET', path: `/tests/${(await fresh.test()).testId}` }) },
  'tests.steps': { allow: READ, scope: 'resource', build: async () => ({ method: 'GET', path: `/tests/${(await fresh.test()).testId}/steps` }) },
  'tests.history': { allow: READ, scope: 'resource', build: async () => ({ method: 'GET', path: `/tests/${(await fresh.test()).testId}/history` }) },
  'tests.snapshots': { allow: READ, scope: 'resource', build: async () => ({ method: 'GET', path: `/tests/${(await fresh.test()).testId}/snapshots` }) },
  'tests.acceptSnapshots': { allow: REPORT, scope: 'resource', build: async () => ({ method: 'POST', path: `/tests/${(await fresh.test()).testId}/snapshots/accept`, body: {} }) },
  'tests.unacceptSnapshots': { allow: REPORT, scope: 'resource', build: async () => ({ method: 'DELETE', path: `/tests/${(await fresh.test()).testId}/snapshots/accept`, body: {} }) },
  'testSuites.upsert': {
    allow: REPORT,
    scope: 'param',
    build: async () => ({ method: 'POST', path: '/test-suites', body: { runId: await fresh.run(), projectId: t.projectId, title: `s-${uniq()}`, filePath: 'a.spec.ts' } }),
  },
  'testSuites.createBatch': {
    allow: REPORT,
    scope: 'param',
    build: async () => ({ method: 'POST', path: '/test-suites/batch', body: { suites: [{ runId: await fresh.run(), projectId: t.projectId, title: `s-${uniq()}`, filePath: 'a.spec.ts' }] } }),
  },
  'testSuites.list': { allow: READ, scope: 'param', build: async () => ({ method: 'GET', path: `/test-suites?runId=${await fresh.run()}&projectId=${t.projectId}` }) },
  'errors.list': { allow: READ, scope: 'param', build: async () => ({ method: 'GET', path: `/errors?projectId=${t.projectId}` }) },
  search: { allow: READ, scope: 'param', build: async () => ({ method: 'GET', path: `/search?projectId=${t.projectId}&q=ECONNRESET` }) },
  insights: { allow: READ, scope: 'param', build: async () => ({ method: 'GET', path: `/insights?projectId=${t.projectId}&days=7` }) },
  'errors.get': {
    allow: READ,
    scope: 'param',
    build: async () => {
      const runId = await fresh.run();
      await asKey('POST', '/tests', { runId, projectId: t.projectId, title: 'x', fullTitle: `m > x ${uniq()}`, filePath: 'e.spec.ts', status: 'failed', duration: 1, error: { message: 'Error: boom' } });
      const fp = (await asKey('GET', `/errors?projectId=${t.projectId}`)).data[0].fingerprint;
      return { method: 'GET', path: `/errors/${fp}?projectId=${t.projectId}` };
    },
  },
  'flakiness.list': { allow: READ, scope: 'param', build: async () => ({ method: 'GET', path: `/flakiness?projectId=${t.projectId}` }) },
  'flakiness.update': {
    allow: REPORT,
    scope: 'param',
    build: async () => ({ method: 'POST', path: '/flakiness', body: { testId: (await fresh.test()).testId, projectId: t.projectId, isQuarantined: true } }),
  },
  'flakiness.events': { allow: READ, scope: 'param', build: async () => ({ method: 'GET', path: `/flakiness/${(await fresh.test()).testId}/events?projectId=${t.projectId}` }) },
  'artifacts.upload': {
    allow: REPORT,
    scope: 'param',
    build: async () => {
      const form = new FormData();
      form.set('type', 'screenshot');
      form.set('runId', await fresh.run());
      form.set('projectId', t.projectId);
      form.set('file', new Blob([PNG], { type: 'image/png' }), 'shot.png');
      return { method: 'POST', path: '/upload', multipart: form };
    },
  },
  'artifacts.list': { allow: READ, scope: 'resource', build: async () => ({ method: 'GET', path: `/artifacts?runId=${await fresh.run()}` }) },
  'projects.list': { allow: READ, scope: 'param', build: async () => ({ method: 'GET', path: `/projects?teamId=${t.teamId}` }) },
  'projects.create': { allow: MEMBER_UP, scope: 'param', build: async () => ({ method: 'POST', path: '/projects', body: { name: `p-${uniq()}`, teamId: t.teamId } }) },
  'projects.get': { allow: READ, scope: 'resource', build: async () => ({ method: 'GET', path: `/projects/${t.projectId}` }) },
  'projects.update': { allow: ADMIN, scope: 'resource', build: async () => ({ method: 'PATCH', path: `/projects/${await fresh.project()}`, body: { name: `renamed-${uniq()}` } }) },
  'projects.delete': { allow: ADMIN, scope: 'resource', build: async () => ({ method: 'DELETE', path: `/projects/${await fresh.project()}` }) },
  'projects.getSettings': { allow: READ, scope: 'resource', build: async () => ({ method: 'GET', path: `/projects/${t.projectId}/settings` }) },
  'projects.shardPlan': { allow: READ, scope: 'resource', build: async () => ({ method: 'GET', path: `/projects/${t.projectId}/shard-plan?total=2` }) },
  'projects.updateSettings': { allow: ADMIN, scope: 'resource', build: async () => ({ method: 'PATCH', path: `/projects/${await fresh.project()}/settings`, body: { flakinessThreshold: 0.5 } }) },
  'teams.list': { allow: ALL_USERS, scope: 'none', build: async () => ({ method: 'GET', path: '/teams' }) },
  'teams.create': { allow: ALL_USERS, scope: 'none', build: async () => ({ method: 'POST', path: '/teams', body: { name: `t-${uniq()}` } }) },
  'teams.update': { allow: ADMIN, scope: 'resource', build: async () => ({ method: 'PATCH', path: `/teams/${t.teamId}`, body: { name: 'Team A' } }) },
  'teams.delete': { allow: ['owner'], scope: 'resource', build: async () => ({ method: 'DELETE', path: `/teams/${await fresh.team()}` }) },
  'members.list': { allow: USERS_IN_TEAM, scope: 'param', build: async () => ({ method: 'GET', path: `/team-members?teamId=${t.teamId}` }) },
  'members.invite': { allow: MEMBER_UP, scope: 'param', build: async () => ({ method: 'POST', path: '/team-members', body: { teamId: t.teamId, email: `i-${uniq()}@example.test`, role: 'member' } }) },
  'members.update': { allow: ADMIN, scope: 'resource', build: async () => ({ method: 'PATCH', path: `/team-members/${await fresh.member()}`, body: { role: 'member' } }) },
  'members.remove': { allow: ADMIN, scope: 'resource', build: async () => ({ method: 'DELETE', path: `/team-members/${await fresh.member()}` }) },
  'invitations.list': { allow: MEMBER_UP, scope: 'param', build: async () => ({ method: 'GET', path: `/invitations?teamId=${t.teamId}` }) },
  'invitations.accept': {
    // Anyone signed in may accept an invitation sent to their own address.
    allow: ALL_USERS,
    scope: 'none',
    build: async (who) => {
      const user = (users as Record<string, TestUser>)[who];
      if (!user) return { method: 'POST', path: '/invitations/accept', body: { token: 'not-a-token' } };
      const inviter = await t.createUser();
      const team = await ok(t.api('POST', '/teams', { auth: inviter, body: { name: `inv-${uniq()}` } }));
      await ok(t.api('POST', '/team-members', { auth: inviter, body: { teamId: team.id, email: user.email, role: 'viewer' } }));
      return { method: 'POST', path: '/invitations/accept', body: { token: mailedToken(user.email) } };
    },
  },
  'invitations.revoke': { allow: ADMIN, scope: 'resource', build: async () => ({ method: 'DELETE', path: `/invitations/${await fresh.invitation()}` }) },
  'apiKeys.list': { allow: ADMIN_OR_KEY, scope: 'param', build: async () => ({ method: 'GET', path: `/api-keys?projectId=${t.projectId}` }) },
  'apiKeys.create': { allow: ADMIN, scope: 'param', build: async () => ({ method: 'POST', path: '/api-keys', body: { projectId: t.projectId, name: `k-${uniq()}` } }) },
  'apiKeys.update': { allow: ADMIN, scope: 'resource', build: async () => ({ method: 'PATCH', path: `/api-keys/${await fresh.apiKey()}`, body: { isActive: false } }) },
  'apiKeys.delete': { allow: ADMIN, scope: 'resource', build: async () => ({ method: 'DELETE', path: `/api-keys/${await fresh.apiKey()}` }) },
  'webhooks.list': { allow: ADMIN_OR_KEY, scope: 'param', build: async () => ({ method: 'GET', path: `/webhooks?projectId=${t.projectId}` }) },
  'webhooks.create': {
    allow: ADMIN_OR_KEY,
    scope: 'param',
    build: async () => ({ method: 'POST', path: '/webhooks', body: { projectId: t.projectId, url: 'http://127.0.0.1:9/hook', events: ['run.completed'] } }),
  },
  'webhooks.get': { allow: ADMIN_OR_KEY, scope: 'resource', build: async () => ({ method: 'GET', path: `/webhooks/${await fresh.webhook()}` }) },
  'webhooks.update': { allow: ADMIN_OR_KEY, scope: 'resource', build: async () => ({ method: 'PATCH', path: `/webhooks/${await fresh.webhook()}`, body: { isActive: false } }) },
  'webhooks.delete': { allow: ADMIN_OR_KEY, scope: 'resource', build: async () => ({ method: 'DELETE', path: `/webhooks/${await fresh.webhook()}` }) },
  'webhooks.deliveries': { allow: ADMIN_OR_KEY, scope: 'resource', build: async () => ({ method: 'GET', path: `/webhooks/${await fresh.webhook()}/deliveries` }) },
  'webhooks.test': { allow: ADMIN_OR_KEY, scope: 'resource', build: async () => ({ method: 'POST', path: `/webhooks/${await fresh.webhook()}/test` }) },
  me: { allow: ['owner', 'admin', 'member', 'viewer', 'keyA', 'keyB', 'outsider'], scope: 'none', build: async () => ({ method: 'GET', path: '/me' }) },
  // Account flows are public by design (they are how one gets credentials); tested in accounts/.
  'auth.signup': 'public',
  'auth.verifyEmail': 'public',
  'auth.login': 'public',
  'auth.forgotPassword': 'public',
  'auth.resetPassword': 'public',
  'auth.me': { allow: ALL_USERS, scope: 'none', build: async () => ({ method: 'GET', path: '/auth/me' }) },
  'auth.logout': { allow: ALL_USERS, scope: 'none', build: async () => ({ method: 'POST', path: '/auth/logout' }) },
  // Every user here already has a team, so onboarding is allowed but answers 409.
  'auth.onboarding': { allow: ALL_USERS, scope: 'none', okStatus: 409, build: async () => ({ method: 'POST', path: '/auth/onboarding', body: { teamName: 'x', projectName: 'y' } }) },
};

/** What a refused principal gets: 401 without credentials; 404 for a resource out of reach; 403 otherwise. */
function refusal(who: Who, c: Case, op: OperationId): number {
  if (who === 'anon') return 401;
  const userOnly = endpoints[op].auth === 'user';
  if ((who === 'keyA' || who === 'keyB') && userOnly) return 403;
  const outOfReach = who === 'keyB' || who === 'outsider';
  if (outOfReach && c.scope === 'resource') return 404;
  return 403;
}

async function send(who: Who, req: Req, op: OperationId) {
  const headers: Record<string, string> = {};
  if (who === 'keyA') headers['X-API-Key'] = t.apiKey;
  else if (who === 'keyB') headers['X-API-Key'] = keyB;
  else {
    // Sent as the dashboard's own pages send it: a body-less POST without Origin (the shape of a
    // forged no-cors fetch) is refused as CSRF before any role check. API-key callers send none.
    headers.Origin = new URL(t.url).origin;
    if (who !== 'anon') {
      // logout ends the session it is sent with: give it a session of its own.
      const u = users[who];
      headers.Cookie = op === 'auth.logout' ? `testreport_session=${(await t.server.services.sessions.create(u.userId)).token}` : u.cookie;
    }
  }
  const base = endpoints[op].base === 'app' ? t.url : t.baseUrl;
  let body: FormData | string | undefined;
  if (req.multipart) body = req.multipart;
  else if (req.body !== undefined) {
    headers['Content-Type'] = 'application/json';
    body = JSON.stringify(req.body);
  }
  const res = await fetch(base + req.path, { method: req.method, headers, body });
  const text = await res.text();
  return { status: res.status, text };
}

beforeAll(async () => {
  t = await startTestServer();
  const other = await t.createOtherTenant();
  keyB = other.apiKey;
  users = {
    owner: t.owner,
    admin: await t.createUser({ teamId: t.teamId, role: 'admin' }),
    member: await t.createUser({ teamId: t.teamId, role: 'member' }),
    viewer: await t.createUser({ teamId: t.teamId, role: 'viewer' }),
    outsider: other.owner,
  };
}, 120_000);
afterAll(async () => {
  await t?.close();
});

describe('authorization matrix (docs/decisions.md §6)', () => {
  it('has an entry for every operation of the route table, and no other', () => {
    expect(Object.keys(MATRIX).sort()).toEqual([...operationIds].sort());
  });

  for (const op of operationIds) {
    const c = MATRIX[op];
    if (c === 'public') continue;
    it(`${op}: ${endpoints[op].method} ${endpoints[op].path}`, async () => {
      const outcomes: string[] = [];
      const expected: string[] = [];
      for (const who of EVERYONE) {
        const req = await c.build(who);
        const res = await send(who, req, op);
        const want = c.allow.includes(who) ? (c.okStatus ?? endpoints[op].status) : refusal(who, c, op);
        outcomes.push(`${who}=${res.status}`);
        expected.push(`${who}=${want}`);
        if (res.status !== want) outcomes[outcomes.length - 1] += ` (${res.text.slice(0, 160)})`;
      }
      expect(outcomes).toEqual(expected);
    });
  }
});
