import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TeamRole } from '@testreport/contract';
import { createUserRepo } from '../accounts/userRepo.js';
import type { ConfigInput } from '../config.js';
import { hashPassword } from '../lib/crypto.js';
import { newId } from '../lib/ids.js';
import { startServer, type RunningServer } from '../server.js';
import { createTestPostgresDatabase, testDbKind, type TestDatabase } from './database.js';
import { createResponseCheck } from './responseCheck.js';

/** Compiled once per test process: the document does not change between servers. */
let responseCheck: ReturnType<typeof createResponseCheck> | undefined;
/**
 * scrypt at OWASP cost takes ~0.3 s of CPU: the shared test password is hashed once per test
 * process (vitest runs many files in one process), not once per server, let alone per user.
 */
let passwordHash: Promise<string> | undefined;

export interface TestUser {
  userId: string;
  email: string;
  password: string;
  /** `testreport_session=<token>`, ready for a Cookie header. */
  cookie: string;
}

export interface TestServer {
  server: RunningServer;
  /** {app_url} */
  url: string;
  /** {base_url} = {app_url}/api/v1 */
  baseUrl: string;
  dataDir: string;
  owner: TestUser;
  teamId: string;
  projectId: string;
  apiKey: string;
  /** Creates a verified user; with `teamId` and `role` it is also made a member of that team. */
  createUser(opts?: { email?: string; teamId?: string; role?: TeamRole; verified?: boolean }): Promise<TestUser>;
  /** A second team (owned by a new user) with its own project and key: for isolation tests. */
  createOtherTenant(): Promise<{ owner: TestUser; teamId: string; projectId: string; apiKey: string }>;
  /** fetch against {base_url} with JSON in and out; `auth` is an API key or a TestUser. */
  api(method: string, path: string, opts?: { auth?: string | TestUser; body?: unknown; headers?: Record<string, string> }): Promise<{ status: number; body: any; headers: Headers }>;
  /**
   * Answers of this server that openapi.json does not allow (a status the operation does not list,
   * or a body its schema refuses). `close()` throws when there are any, so every test that starts
   * a server fails on an answer the description does not allow.
   */
  responseProblems: string[];
  close(): Promise<void>;
}

const PASSWORD = 'correct horse battery';

/**
 * A real server on a temp data dir and port 0, with an owner, team, project and API key. Its
 * database is SQLite in the data dir, or with TESTREPORT_TEST_DB=postgres a fresh PostgreSQL
 * database dropped on close; a `databaseUrl` given in `config` is used as is and left alone.
 */
export async function startTestServer(config: ConfigInput = {}): Promise<TestServer> {
  const dataDir = mkdtempSync(join(tmpdir(), 'testreport-'));
  const ownDb: TestDatabase | null = config.databaseUrl === undefined && testDbKind() === 'postgres' ? await createTestPostgresDatabase() : null;
  let server: RunningServer;
  const responseProblems: string[] = [];
  const check = (responseCheck ??= createResponseCheck());
  try {
    server = await startServer({
      port: 0,
      dataDir,
      rateLimits: false,
      webhookAllowPrivate: true,
      logger: { error() {}, warn() {}, info() {}, debug() {} },
      ...(ownDb ? { databaseUrl: ownDb.url } : {}),
      ...config,
    }, { wrapFetch: (fetch) => check.wrap(fetch, (p) => responseProblems.push(p)) });
  } catch (err) {
    await ownDb?.drop();
    rmSync(dataDir, { recursive: true, force: true });
    throw err;
  }
  const { services, config: cfg } = server;
  const users = createUserRepo(services.deps.db);
  const seed = await services.bootstrap.init({ email: `owner-${newId().slice(-8)}@example.test`, password: PASSWORD, team: 'Team A', project: 'Project A' });

  passwordHash ??= hashPassword(PASSWORD);
  const password_hash = await passwordHash;
  const sessionFor = async (userId: string) => `testreport_session=${(await services.sessions.create(userId)).token}`;

  async function createUser(opts: { email?: string; teamId?: string; role?: TeamRole; verified?: boolean } = {}): Promise<TestUser> {
    const now = cfg.now().toISOString();
    const email = (opts.email ?? `user-${newId().slice(-12)}@example.test`).toLowerCase();
    const userId = newId();
    await users.insert({
      id: userId, email, name: email.split('@')[0], password_hash,
      email_verified_at: opts.verified === false ? null : now, avatar_url: null, created_at: now, updated_at: now,
    });
    if (opts.teamId && opts.role) {
      await services.deps.db.insertInto('team_members').values({ id: newId(), team_id: opts.teamId, user_id: userId, role: opts.role, joined_at: now }).execute();
    }
    return { userId, email, password: PASSWORD, cookie: await sessionFor(userId) };
  }

  const baseUrl = `${server.url}/api/v1`;
  async function api(method: string, path: string, opts: { auth?: string | TestUser; body?: unknown; headers?: Record<string, string> } = {}) {
    const headers: Record<string, string> = { ...opts.headers };
    if (typeof opts.auth === 'string') headers['X-API-Key'] = opts.auth;
    else if (opts.auth) headers.Cookie = opts.auth.cookie;
    if (opts.body !== undefined) headers['Content-Type'] ??= 'application/json';
    const url = path.startsWith('http') ? path : path.startsWith('/auth') ? server.url + path : baseUrl + path;
    const res = await fetch(url, {
      method,
      headers,
      body: opts.body === undefined ? undefined : typeof opts.body === 'string' ? opts.body : JSON.stringify(opts.body),
    });
    const text = await res.text();
    let body: unknown = text;
    try {
      body = text ? JSON.parse(text) : null;
    } catch {
      /* not JSON */
    }
    return { status: res.status, body: body as any, headers: res.headers };
  }

  const owner: TestUser = { userId: seed.userId, email: seed.email, password: PASSWORD, cookie: await sessionFor(seed.userId) };
  return {
    server,
    url: server.url,
    baseUrl,
    dataDir,
    owner,
    teamId: seed.teamId,
    projectId: seed.projectId,
    apiKey: seed.apiKey,
    createUser,
    async createOtherTenant() {
      const r = await services.bootstrap.init({ email: `other-${newId().slice(-8)}@example.test`, password: PASSWORD, team: 'Team B', project: 'Project B' });
      return { owner: { userId: r.userId, email: r.email, password: PASSWORD, cookie: await sessionFor(r.userId) }, teamId: r.teamId, projectId: r.projectId, apiKey: r.apiKey };
    },
    api,
    responseProblems,
    async close() {
      await server.close();
      await ownDb?.drop();
      rmSync(dataDir, { recursive: true, force: true });
      if (responseProblems.length > 0) {
        throw new Error(`The server answered ${responseProblems.length} time(s) outside openapi.json:\n${[...new Set(responseProblems)].join('\n')}`);
      }
    },
  };
}
