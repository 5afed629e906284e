import { http, HttpResponse, delay } from 'msw';
import { describe, expect, it } from 'vitest';
import {
  AuthenticationError, ConflictError, ConnectionError, NotFoundError, PayloadTooLargeError, PermissionError, RateLimitError, ServerError, ValidationError,
} from '../index.js';
import { MOCK_BASE, MOCK_URL, mockClient, useMockApi } from '../testing/mockApi.js';
import { VERSION } from '../version.js';

const { server, seen } = useMockApi();
const PROJECT = 'p-1';
const runBody = { projectId: PROJECT, status: 'running' } as const;
const created = { id: 'r-1', projectId: PROJECT, status: 'running' };
const errorBody = (code: string, message: string, details?: object) => ({ error: { code, message, ...(details ? { details } : {}) } });

/** Answers the listed responses in order, then repeats the last one. */
function sequence(method: 'get' | 'post' | 'patch', path: string, responses: Array<() => Response | Promise<Response>>) {
  let i = 0;
  server.use(http[method](`${MOCK_BASE}${path}`, () => responses[Math.min(i++, responses.length - 1)]!()));
}

describe('retries', () => {
  it('retries a burst of 503s and returns the eventual answer, with one Idempotency-Key for every attempt', async () => {
    sequence('post', '/runs', [
      () => HttpResponse.json(errorBody('INTERNAL_ERROR', 'busy'), { status: 503 }),
      () => HttpResponse.json(errorBody('INTERNAL_ERROR', 'busy'), { status: 503 }),
      () => HttpResponse.json(created, { status: 201 }),
    ]);
    const run = await mockClient().runs.create(runBody);
    expect(run).toEqual(created);
    expect(seen).toHaveLength(3);
    const keys = seen.map((r) => r.headers.get('idempotency-key'));
    expect(keys[0]).toMatch(/^[0-9a-f-]{36}$/);
    expect(new Set(keys).size).toBe(1);
  });

  it('retries a connection reset mid-POST with the same caller-given Idempotency-Key', async () => {
    sequence('post', '/tests/batch', [() => HttpResponse.error(), () => HttpResponse.json({ data: [] }, { status: 201 })]);
    const res = await mockClient().tests.createBatch([], { idempotencyKey: 'batch-42' });
    expect(res).toEqual({ data: [] });
    expect(seen.map((r) => r.headers.get('idempotency-key'))).toEqual(['batch-42', 'batch-42']);
  });

  it('a new call gets a new Idempotency-Key', async () => {
    sequence('post', '/runs', [() => HttpResponse.json(created, { status: 201 })]);
    const client = mockClient();
    await client.runs.create(runBody);
    await client.runs.create(runBody);
    expect(seen[0]!.headers.get('idempotency-key')).not.toBe(seen[1]!.headers.get('idempotency-key'));
  });

  it('waits what Retry-After says on 429 before trying again', async () => {
    sequence('get', '/runs', [
      () => HttpResponse.json(errorBody('RATE_LIMITED', 'slow down'), { status: 429, headers: { 'Retry-After': '1' } }),
      () => HttpResponse.json({ data: [], total: 0, limit: 50, offset: 0 }),
    ]);
    const page = await mockClient().runs.list({ projectId: PROJECT });
    expect(page.total).toBe(0);
    expect(seen).toHaveLength(2);
    expect(seen[1]!.at - seen[0]!.at).toBeGreaterThanOrEqual(1000);
  });

  it('gives up at once with RateLimitError when Retry-After is beyond the retry budget', async () => {
    sequence('get', '/runs', [() => HttpResponse.json(errorBody('RATE_LIMITED', 'slow down'), { status: 429, headers: { 'Retry-After': '120' } })]);
    const err = await mockClient({ retryBudgetMs: 5_000 }).runs.list({ projectId: PROJECT }).catch((e) => e);
    expect(err).toBeInstanceOf(RateLimitError);
    expect(err.retryAfter).toBe(120);
    expect(err.status).toBe(429);
    expect(seen).toHaveLength(1);
  });

  it('stops after maxRetries and throws the last answer', async () => {
    sequence('get', '/runs/r-1', [() => HttpResponse.json(errorBody('INTERNAL_ERROR', 'gateway'), { status: 502 })]);
    const err = await mockClient({ maxRetries: 2 }).runs.get('r-1').catch((e) => e);
    expect(err).toBeInstanceOf(ServerError);
    expect(err.status).toBe(502);
    expect(seen).toHaveLength(3);
  });

  it('stops when the retry budget is spent, before maxRetries', async () => {
    sequence('get', '/runs/r-1', [() => HttpResponse.json(errorBody('INTERNAL_ERROR', 'down'), { status: 503 })]);
    const err = await mockClient({ maxRetries: 50, retryBaseMs: 40, retryMaxDelayMs: 40, retryBudgetMs: 200 }).runs.get('r-1').catch((e) => e);
    expect(err).toBeInstanceOf(ServerError);
    expect(seen.length).toBeGreaterThan(1);
    expect(seen.length).toBeLessThan(51);
  });

  it('retries a 500 of an idempotent request (a POST with its Idempotency-Key, a GET): the server rolled it back', async () => {
    sequence('post', '/tests/batch', [
      () => HttpResponse.json(errorBody('INTERNAL_ERROR', 'Unexpected server error'), { status: 500 }),
      () => HttpResponse.json({ data: [] }, { status: 201 }),
    ]);
    expect(await mockClient().tests.createBatch([], { idempotencyKey: 'b-500' })).toEqual({ data: [] });
    expect(seen.map((r) => r.headers.get('idempotency-key'))).toEqual(['b-500', 'b-500']);
    sequence('get', '/runs/r-1', [() => HttpResponse.json(errorBody('INTERNAL_ERROR', 'oops'), { status: 500 }), () => HttpResponse.json(created)]);
    expect(await mockClient().runs.get('r-1')).toEqual(created);
    expect(seen).toHaveLength(4);
  });

  it('does not retry a 500 of a request without a stable Idempotency-Key (login: a fresh key per attempt)', async () => {
    server.use(http.post(`${MOCK_URL}/auth/login`, () => HttpResponse.json(errorBody('INTERNAL_ERROR', 'oops'), { status: 500 })));
    const err = await mockClient({ apiKey: undefined }).auth.login({ email: 'a@example.test', password: 'pw-pw-pw-pw' }).catch((e) => e);
    expect(err).toBeInstanceOf(ServerError);
    expect(seen).toHaveLength(1);
  });

  it('waits at least what Retry-After says on 503 and 507 (an outage) before sending the same request again', async () => {
    sequence('post', '/tests/batch', [
      () => HttpResponse.json(errorBody('SERVICE_UNAVAILABLE', 'The database cannot be reached right now'), { status: 503, headers: { 'Retry-After': '1' } }),
      () => HttpResponse.json(errorBody('INSUFFICIENT_STORAGE', 'disk full'), { status: 507, headers: { 'Retry-After': '1' } }),
      () => HttpResponse.json({ data: [] }, { status: 201 }),
    ]);
    expect(await mockClient({ retryBaseMs: 10 }).tests.createBatch([])).toEqual({ data: [] });
    expect(seen).toHaveLength(3);
    expect(seen[1]!.at - seen[0]!.at).toBeGreaterThanOrEqual(1000);
    expect(seen[2]!.at - seen[1]!.at).toBeGreaterThanOrEqual(1000);
    expect(new Set(seen.map((r) => r.headers.get('idempotency-key'))).size).toBe(1);
  });

  it('does not retry other 4xx answers', async () => {
    for (const status of [400, 401, 403, 404, 409, 413]) {
      sequence('patch', '/runs/r-1', [() => HttpResponse.json(errorBody('X', 'no'), { status })]);
      await mockClient().runs.update('r-1', { status: 'passed' }).catch(() => undefined);
    }
    expect(seen).toHaveLength(6);
  });

  it('retries the 409 "still in progress" answer to a retry until the first attempt is replayed', async () => {
    sequence('post', '/runs', [
      () => HttpResponse.error(),
      () => HttpResponse.json(errorBody('CONFLICT', 'A request with this Idempotency-Key is still in progress; retry shortly'), { status: 409 }),
      () => HttpResponse.json(created, { status: 201, headers: { 'Idempotent-Replayed': 'true' } }),
    ]);
    expect(await mockClient().runs.create(runBody)).toEqual(created);
    expect(seen).toHaveLength(3);
  });

  it('reports each retry to onRetry with the wait it chose', async () => {
    sequence('get', '/me', [() => HttpResponse.error(), () => HttpResponse.json({ type: 'apiKey' })]);
    const retries: Array<{ attempt: number; delayMs: number; error: Error }> = [];
    await mockClient({ onRetry: (info) => retries.push(info) }).me();
    expect(retries).toHaveLength(1);
    expect(retries[0]!.attempt).toBe(1);
    expect(retries[0]!.error).toBeInstanceOf(ConnectionError);
  });
});

describe('time-outs and cancellation', () => {
  it('times out a stalled attempt, retries, and succeeds', async () => {
    sequence('get', '/runs/r-1', [
      async () => {
        await delay(2_000);
        return HttpResponse.json(created);
      },
      () => HttpResponse.json(created),
    ]);
    expect(await mockClient({ timeoutMs: 100 }).runs.get('r-1')).toEqual(created);
    expect(seen).toHaveLength(2);
  });

  it('throws ConnectionError (timedOut) when every attempt stalls', async () => {
    sequence('get', '/runs/r-1', [
      async () => {
        await delay(2_000);
        return HttpResponse.json(created);
      },
    ]);
    const err = await mockClient({ timeoutMs: 50, maxRetries: 1 }).runs.get('r-1').catch((e) => e);
    expect(err).toBeInstanceOf(ConnectionError);
    expect(err.timedOut).toBe(true);
    expect(err.message).toContain('GET /runs/r-1 timed out after 50 ms');
    expect(seen).toHaveLength(2);
  });

  it('throws ConnectionError when the server cannot be reached', async () => {
    sequence('get', '/me', [() => HttpResponse.error()]);
    const err = await mockClient({ maxRetries: 0 }).me().catch((e) => e);
    expect(err).toBeInstanceOf(ConnectionError);
    expect(err.timedOut).toBe(false);
  });

  it('an AbortSignal cancels the call during a retry wait, and nothing more is sent', async () => {
    sequence('get', '/runs', [() => HttpResponse.json(errorBody('RATE_LIMITED', 'wait'), { status: 429, headers: { 'Retry-After': '30' } })]);
    const controller = new AbortController();
    const pending = mockClient().runs.list({ projectId: PROJECT }, { signal: controller.signal });
    setTimeout(() => controller.abort(), 50);
    const err = await pending.catch((e) => e);
    expect(err.name).toBe('AbortError');
    expect(seen).toHaveLength(1);
  });

  it('an already aborted signal sends nothing', async () => {
    const err = await mockClient().me({ signal: AbortSignal.abort() }).catch((e) => e);
    expect(err.name).toBe('AbortError');
    expect(seen).toHaveLength(0);
  });
});

describe('typed errors', () => {
  it('maps each status to its class with code, details and the X-Request-Id', async () => {
    const cases: Array<[number, string, unknown]> = [
      [400, 'VALIDATION_ERROR', ValidationError],
      [401, 'UNAUTHORIZED', AuthenticationError],
      [403, 'FORBIDDEN', PermissionError],
      [403, 'EMAIL_NOT_VERIFIED', PermissionError],
      [404, 'NOT_FOUND', NotFoundError],
      [409, 'CONFLICT', ConflictError],
      [413, 'PAYLOAD_TOO_LARGE', PayloadTooLargeError],
      [429, 'RATE_LIMITED', RateLimitError],
      [500, 'INTERNAL_ERROR', ServerError],
    ];
    for (const [status, code, Cls] of cases) {
      sequence('get', '/runs/r-1', [
        () => HttpResponse.json(errorBody(code, `failed with ${code}`, { field: 'status', reason: 'invalid_value' }), { status, headers: { 'X-Request-Id': `req-${status}` } }),
      ]);
      const err = await mockClient({ maxRetries: 0 }).runs.get('r-1').catch((e) => e);
      expect(err).toBeInstanceOf(Cls as never);
      expect(err).toMatchObject({ status, code, requestId: `req-${status}`, details: { field: 'status', reason: 'invalid_value' } });
    }
  });

  it('puts the server message, code, field and request id on one line', async () => {
    sequence('post', '/runs', [
      () => HttpResponse.json(errorBody('VALIDATION_ERROR', 'projectId: required\n(see docs)', { field: 'projectId', reason: 'required' }), { status: 400, headers: { 'X-Request-Id': 'req-9' } }),
    ]);
    const err = await mockClient().runs.create(runBody).catch((e) => e);
    expect(err.message).toBe('projectId: required (see docs) [VALIDATION_ERROR, field projectId, reason required] (HTTP 400, POST /runs, request req-9)');
    expect(err.serverMessage).toBe('projectId: required\n(see docs)');
  });

  it('copes with a proxy error page that is not our JSON envelope', async () => {
    sequence('get', '/me', [() => new HttpResponse('<html><body>Bad Gateway</body></html>', { status: 502, headers: { 'Content-Type': 'text/html', Server: 'nginx' } })]);
    const err = await mockClient({ maxRetries: 0 }).me().catch((e) => e);
    expect(err).toBeInstanceOf(ServerError);
    expect(err.code).toBe('HTTP_502');
    expect(err.message).toContain('nginx');
  });
});

describe('answers that are not ours', () => {
  it('does not follow a redirect (it would carry X-API-Key elsewhere) and says where it pointed', async () => {
    server.use(
      http.get(`${MOCK_BASE}/me`, () => new HttpResponse(null, { status: 301, headers: { Location: 'https://evil.test/api/v1/me' } })),
      http.get('https://evil.test/api/v1/me', () => HttpResponse.json({ type: 'apiKey' })),
    );
    const err = await mockClient().me().catch((e) => e);
    expect(err.code).toBe('UNEXPECTED_REDIRECT');
    expect(err.message).toContain('https://evil.test/api/v1/me');
    expect(seen.map((r) => r.url)).toEqual([`${MOCK_BASE}/me`]);
  });

  it('refuses a 200 that is not JSON', async () => {
    server.use(http.get(`${MOCK_BASE}/me`, () => new HttpResponse('<html>portal</html>', { headers: { 'Content-Type': 'text/html' } })));
    const err = await mockClient().me().catch((e) => e);
    expect(err.code).toBe('INVALID_RESPONSE');
    expect(err.message).toContain('text/html');
  });
});

describe('requests on the wire', () => {
  it('sends X-API-Key, User-Agent and JSON, and no Idempotency-Key on GET', async () => {
    server.use(
      http.post(`${MOCK_BASE}/runs`, async ({ request }) => HttpResponse.json({ ...created, echo: await request.json() }, { status: 201 })),
      http.get(`${MOCK_BASE}/runs`, ({ request }) => HttpResponse.json({ data: [], total: 0, limit: 50, offset: 0, query: new URL(request.url).search })),
    );
    const client = mockClient({ userAgent: 'my-script/2.0' });
    const made = (await client.runs.create({ ...runBody, tags: ['a'] })) as unknown as { echo: unknown };
    expect(made.echo).toEqual({ ...runBody, tags: ['a'] });
    const list = (await client.runs.list({ projectId: PROJECT, status: 'failed', branch: undefined, limit: 5 })) as unknown as { query: string };
    expect(list.query).toBe('?projectId=p-1&status=failed&limit=5');
    const [post, get] = seen;
    expect(post!.headers.get('user-agent')).toBe(`my-script/2.0 testreport-client/${VERSION}`);
    expect(post!.headers.get('content-type')).toBe('application/json');
    expect(post!.headers.get('x-api-key')).toMatch(/^trk_live_/);
    expect(get!.headers.get('idempotency-key')).toBeNull();
  });

  it('uses {app_url}/api/v1 for the API and {app_url} for /auth, ignoring trailing slashes', async () => {
    server.use(
      http.get('https://example.test/base/me', () => HttpResponse.json({ type: 'apiKey' })),
      http.post('https://host.test/auth/forgot-password', () => HttpResponse.json({ message: 'ok' })),
      http.get('https://host.test/api/v1/me', () => HttpResponse.json({ type: 'user' })),
    );
    expect(await mockClient({ url: 'https://host.test/' }).me()).toEqual({ type: 'user' });
    expect(await mockClient({ url: 'https://host.test//' }).auth.forgotPassword({ email: 'a@b.test' })).toEqual({ message: 'ok' });
    expect(await mockClient({ url: 'https://host.test', baseUrl: 'https://example.test/base/' }).me()).toEqual({ type: 'apiKey' });
    expect(seen.map((r) => r.url)).toEqual(['https://host.test/api/v1/me', 'https://host.test/auth/forgot-password', 'https://example.test/base/me']);
  });

  it('sends no credentials to public account endpoints', async () => {
    server.use(http.post(`https://testreport.test/auth/forgot-password`, () => HttpResponse.json({ message: 'ok' })));
    await mockClient({ sessionCookie: 'abc' }).auth.forgotPassword({ email: 'a@b.test' });
    expect(seen[0]!.headers.get('cookie')).toBeNull();
    expect(seen[0]!.headers.get('x-api-key')).toBeNull();
  });

  it('prefers the session cookie over the API key, and accepts a bare token', async () => {
    server.use(http.get(`${MOCK_BASE}/me`, () => HttpResponse.json({ type: 'user' })));
    await mockClient({ sessionCookie: 'tok123' }).me();
    expect(seen[0]!.headers.get('cookie')).toBe('testreport_session=tok123');
    expect(seen[0]!.headers.get('x-api-key')).toBeNull();
  });

  it('encodes path parameters', async () => {
    server.use(http.get(`${MOCK_BASE}/runs/:id`, ({ params }) => HttpResponse.json({ id: params.id })));
    await mockClient().runs.get('a/b?c');
    expect(seen[0]!.url).toBe(`${MOCK_BASE}/runs/a%2Fb%3Fc`);
  });
});
