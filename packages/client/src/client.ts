import { randomUUID } from 'node:crypto';
import type { Dispatcher } from 'undici';
import type { BodyOf, OperationId, ParamsOf, QueryOf, ResponseOf } from '@testreport/contract';
import { routes, type RouteDef } from '@testreport/contract/core';
import type { Me } from '@testreport/contract';
import { assertUsableKey, normalizeSessionCookie } from './core/credentials.js';
import { ApiError, AuthenticationError, PermissionError, NotFoundError } from './core/errors.js';
import type { MultipartBody } from './core/multipart.js';
import { JsonText } from './core/jsonText.js';
import type { RequestOptions } from './core/requestOptions.js';
import { assertSecureTransport } from './core/security.js';
import { Transport, type FetchLike, type RequestBody, type RetryInfo } from './core/transport.js';
import { fillPath, resolveUrls, toQueryString } from './core/urls.js';
import { VERSION } from './version.js';
import { ApiKeys } from './resources/apiKeys.js';
import { Artifacts } from './resources/artifacts.js';
import { Auth } from './resources/auth.js';
import { Errors } from './resources/errors.js';
import { Search } from './resources/search.js';
import { Insights } from './resources/insights.js';
import { Flakiness } from './resources/flakiness.js';
import { Invitations } from './resources/invitations.js';
import { Members } from './resources/members.js';
import { Projects } from './resources/projects.js';
import { Runs } from './resources/runs.js';
import { Teams } from './resources/teams.js';
import { Tests } from './resources/tests.js';
import { TestSuites } from './resources/testSuites.js';
import { Webhooks } from './resources/webhooks.js';

export interface ClientOptions {
  /** API key (`X-API-Key`). Defaults to TESTREPORT_API_KEY when no sessionCookie is given. */
  apiKey?: string;
  /** `testreport_session=<token>` or the bare token; wins over apiKey when both are set. */
  sessionCookie?: string;
  /** {app_url}. Default TESTREPORT_URL, else http://localhost:4000. */
  url?: string;
  /** {base_url}. Default `${url}/api/v1`. */
  baseUrl?: string;
  /** Per attempt. Default 30 000. */
  timeoutMs?: number;
  /** Retries on connection errors, time-outs, 429, 502/503/504/507, and 500 of idempotent requests (every write the SDK sends carries an Idempotency-Key). Default 3. */
  maxRetries?: number;
  /** Total time for one call including retries and waits. Default 60 000. */
  retryBudgetMs?: number;
  /** Put in front of `testreport-client/<version>` in the User-Agent (e.g. `testreport-reporter/1.0.0`). */
  userAgent?: string;
  /** Allow credentials over plain http:// to a non-loopback host (warns once). */
  allowInsecureHttp?: boolean;

  /** Per-attempt time-out of artifact uploads, which may carry 200 MB. Default 600 000. */
  uploadTimeoutMs?: number;
  /** First backoff step (doubled per retry, with jitter, capped at retryMaxDelayMs). Default 500. */
  retryBaseMs?: number;
  /** Default 10 000. */
  retryMaxDelayMs?: number;
  /** Parse every answer with the contract's zod schema (throws on drift). Default false. */
  validateResponses?: boolean;
  /** Replaces undici's fetch (tests with msw pass a wrapper around globalThis.fetch). */
  fetch?: FetchLike;
  /** undici dispatcher for the default fetch (proxy agents, custom TLS). Default: a shared keep-alive Agent. */
  dispatcher?: Dispatcher;
  /**
   * What sends requests when no fetch is given: undici (default), or Node's own http/https module
   * (`'node'`), which loads faster and takes no dispatcher. The Playwright reporter uses `'node'`.
   */
  http?: 'undici' | 'node';
  /** Called before each retry wait. */
  onRetry?: (info: RetryInfo) => void;
  /** Where the allowInsecureHttp warning goes. Default process.emitWarning. */
  warn?: (message: string) => void;
}

/** params/query/body of one operation, typed from the contract. */
export interface CallArgs<K extends OperationId> {
  params?: ParamsOf<K>;
  query?: QueryOf<K>;
  /** The body, or its JSON already serialised (the reporter's batches). */
  body?: BodyOf<K> | JsonText<BodyOf<K>>;
}

/** Internal: a call whose body is not JSON (uploads). */
export interface RawCall {
  params?: Record<string, unknown>;
  multipart: MultipartBody;
  replayable: boolean;
  bodyFailure?: { error?: Error };
  timeoutMs?: number;
}

export interface CallResult<K extends OperationId> {
  data: ResponseOf<K>;
  status: number;
  headers: Headers;
}

/** The session cookie is never sent to operations that need no credentials, except to end it. */
const sendsCredentials = (op: OperationId, def: RouteDef) => def.auth !== 'public' || op === 'auth.logout';
/**
 * Login gets a fresh Idempotency-Key per attempt: a replayed login answer could not carry the
 * Set-Cookie of the first one, and a second session is harmless.
 */
const FRESH_KEY_PER_ATTEMPT: ReadonlySet<OperationId> = new Set(['auth.login']);

/** A 2xx that is not JSON (a captive portal, a proxy page) is not a success of ours. */
function parseJson(text: string, status: number, headers: Headers, operation: string): unknown {
  if (!text) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    throw new ApiError({
      status,
      code: 'INVALID_RESPONSE',
      message: `Expected JSON but got ${headers.get('content-type') ?? 'an untyped body'}: is url pointing at the testreport server?`,
      requestId: headers.get('x-request-id') ?? undefined,
      operation,
      headers,
    });
  }
}

const hasPassword = (body: unknown) => typeof body === 'object' && body !== null && 'password' in body;

export class TestReportClient {
  readonly appUrl: string;
  readonly baseUrl: string;
  readonly runs: Runs;
  readonly tests: Tests;
  readonly testSuites: TestSuites;
  readonly flakiness: Flakiness;
  readonly errors: Errors;
  readonly search: Search;
  readonly insights: Insights;
  readonly artifacts: Artifacts;
  readonly projects: Projects;
  readonly teams: Teams;
  readonly members: Members;
  readonly invitations: Invitations;
  readonly apiKeys: ApiKeys;
  readonly webhooks: Webhooks;
  readonly auth: Auth;

  private apiKey: string | undefined;
  private cookie: string | undefined;
  private readonly transport: Transport;
  private readonly allowInsecureHttp: boolean;
  private readonly validateResponses: boolean;
  private readonly warn: (message: string) => void;
  private readonly insecureWarning = { warned: false };
  /** @internal read by Artifacts */
  readonly uploadTimeoutMs: number;

  constructor(options: ClientOptions = {}) {
    const urls = resolveUrls(options.url ?? process.env.TESTREPORT_URL ?? 'http://localhost:4000', options.baseUrl);
    this.appUrl = urls.appUrl;
    this.baseUrl = urls.baseUrl;
    this.cookie = options.sessionCookie ? normalizeSessionCookie(options.sessionCookie) : undefined;
    this.apiKey = options.apiKey ?? (this.cookie ? undefined : process.env.TESTREPORT_API_KEY);
    this.allowInsecureHttp = options.allowInsecureHttp ?? false;
    this.validateResponses = options.validateResponses ?? false;
    this.uploadTimeoutMs = options.uploadTimeoutMs ?? 600_000;
    this.warn = options.warn ?? ((m) => process.emitWarning(m, 'TestReportInsecureTransport'));
    this.transport = new Transport({
      fetch: options.fetch,
      dispatcher: options.dispatcher,
      http: options.http,
      timeoutMs: options.timeoutMs ?? 30_000,
      maxRetries: options.maxRetries ?? 3,
      retryBudgetMs: options.retryBudgetMs ?? 60_000,
      userAgent: options.userAgent ? `${options.userAgent} testreport-client/${VERSION}` : `testreport-client/${VERSION}`,
      retryBaseMs: options.retryBaseMs ?? 500,
      retryMaxDelayMs: options.retryMaxDelayMs ?? 10_000,
      onRetry: options.onRetry,
    });
    this.runs = new Runs(this);
    this.tests = new Tests(this);
    this.testSuites = new TestSuites(this);
    this.flakiness = new Flakiness(this);
    this.errors = new Errors(this);
    this.search = new Search(this);
    this.insights = new Insights(this);
    this.artifacts = new Artifacts(this);
    this.projects = new Projects(this);
    this.teams = new Teams(this);
    this.members = new Members(this);
    this.invitations = new Invitations(this);
    this.apiKeys = new ApiKeys(this);
    this.webhooks = new Webhooks(this);
    this.auth = new Auth(this);
  }

  /** `testreport_session=<token>` the client currently sends, if any (set by auth.login). */
  get sessionCookie(): string | undefined {
    return this.cookie;
  }

  /** Switch to (or, with undefined, away from) a session. */
  setSessionCookie(cookie: string | undefined): void {
    this.cookie = cookie ? normalizeSessionCookie(cookie) : undefined;
  }

  /** Who the caller is: a user with teams, or an API key with its project. */
  me(opts?: RequestOptions): Promise<Me> {
    return this.request('me', {}, opts);
  }

  /**
   * Confirms the credentials before a run starts: the offline key checks of rule 8 (no request when
   * they fail), then GET /me, which refuses an inactive or expired key (rule 3). With `projectId`, a
   * key scoped to another project (rule 4), or a user who cannot see it, is a PermissionError.
   */
  async verify(input: { projectId?: string } = {}, opts?: RequestOptions): Promise<Me> {
    const me = await this.me(opts);
    const { projectId } = input;
    if (!projectId) return me;
    if (me.type === 'apiKey' && me.apiKey.projectId !== projectId) {
      throw new PermissionError({
        status: 403,
        code: 'FORBIDDEN',
        message: `This API key ("${me.apiKey.name}") belongs to project ${me.apiKey.projectId}, not to the expected project ${projectId}. Use a key created for project ${projectId}.`,
        details: { field: 'projectId', reason: 'invalid_value', keyProjectId: me.apiKey.projectId, expectedProjectId: projectId },
      });
    }
    if (me.type === 'user') {
      try {
        await this.projects.get(projectId, opts);
      } catch (err) {
        if (!(err instanceof NotFoundError)) throw err;
        throw new PermissionError({
          status: 403,
          code: 'FORBIDDEN',
          message: `User ${me.user.email} cannot see project ${projectId}: it does not exist or belongs to a team they are not in.`,
          details: { field: 'projectId', reason: 'invalid_value' },
          requestId: err.requestId,
        });
      }
    }
    return me;
  }

  /** Calls one operation of the contract; method, path and base come from the endpoints table. */
  async request<K extends OperationId>(op: K, args: CallArgs<K> = {}, opts: RequestOptions = {}): Promise<ResponseOf<K>> {
    return (await this.call(op, args, opts)).data;
  }

  /** Like request, with the status and headers of the answer. */
  async call<K extends OperationId>(op: K, args: CallArgs<K> | RawCall = {}, opts: RequestOptions = {}): Promise<CallResult<K>> {
    const def: RouteDef = routes[op];
    const raw = 'multipart' in args ? args : undefined;
    const json = raw ? undefined : (args as CallArgs<K>);
    const base = def.base === 'api' ? this.baseUrl : this.appUrl;
    const path = fillPath(def.path, args.params as Record<string, unknown> | undefined);
    const url = base + path + toQueryString(json?.query as Record<string, unknown> | undefined);

    const headers: Record<string, string> = {};
    if (sendsCredentials(op, def)) Object.assign(headers, this.credentialHeaders(op, def));
    if (Object.keys(headers).length > 0 || hasPassword(json?.body)) assertSecureTransport(url, this.allowInsecureHttp, this.insecureWarning, this.warn);

    let body: (() => RequestBody | undefined) | undefined;
    if (raw) {
      headers['Content-Type'] = raw.multipart.contentType;
      if (raw.multipart.contentLength !== undefined) headers['Content-Length'] = String(raw.multipart.contentLength);
      body = () => raw.multipart.stream();
    } else if (def.method === 'POST' || def.method === 'PATCH') {
      // Always JSON, even for body-less POSTs: the server refuses cookie writes of any other type (CSRF).
      const text = json?.body instanceof JsonText ? json.body.text : JSON.stringify(json?.body ?? {});
      headers['Content-Type'] = 'application/json';
      body = () => text;
    }

    const res = await this.transport.send({
      method: def.method,
      url,
      headers,
      body,
      replayable: raw ? raw.replayable : true,
      idempotencyKey: def.method !== 'POST' ? undefined : opts.idempotencyKey ?? (FRESH_KEY_PER_ATTEMPT.has(op) ? 'per-attempt' : randomUUID()),
      operation: `${def.method} ${path}`,
      signal: opts.signal,
      timeoutMs: opts.timeoutMs ?? raw?.timeoutMs,
      bodyFailure: raw?.bodyFailure,
    });
    const parsed = parseJson(res.text, res.status, res.headers, `${def.method} ${path}`);
    // The schemas (and zod) load only for a client that validates: most callers never pay for them.
    const data = (this.validateResponses ? (await import('@testreport/contract')).endpoints[op].response.parse(parsed) : parsed) as ResponseOf<K>;
    return { data, status: res.status, headers: res.headers };
  }

  private credentialHeaders(op: OperationId, def: RouteDef): Record<string, string> {
    if (this.cookie) return { Cookie: this.cookie };
    if (def.auth === 'user' && !this.apiKey) {
      throw new AuthenticationError({
        status: 401,
        code: 'UNAUTHORIZED',
        message: `${op} needs a signed-in user: call client.auth.login() first or pass sessionCookie`,
      });
    }
    return { 'X-API-Key': assertUsableKey(this.apiKey) };
  }
}
