import { http, HttpResponse } from 'msw';
import { describe, expect, it } from 'vitest';
import { InsecureTransportError, KEY_PROBLEM_MESSAGES, KeyValidationError, AuthenticationError, type KeyProblem } from '../index.js';
import { MOCK_BASE, mockClient, useMockApi, validKey } from '../testing/mockApi.js';
import { isLoopbackHost } from './security.js';

const { server, seen } = useMockApi();

const good = validKey();
const flipped = good.slice(0, -1) + (good.endsWith('A') ? 'B' : 'A');
const BAD_KEYS: Array<[KeyProblem, string | undefined]> = [
  ['missing', undefined],
  ['missing', ''],
  ['whitespace', `${good}\n`],
  ['whitespace', ` ${good}`],
  ['too_short', 'abc123'],
  ['placeholder', 'your-api-key'],
  ['placeholder', 'test-key'],
  ['placeholder', 'xxxxxxxxxxxxxxxxxxxx'],
  ['placeholder', '<api-key>'],
  ['placeholder', '${TESTREPORT_API_KEY}'],
  ['placeholder', '$TESTREPORT_API_KEY'],
  ['bad_shape', 'sk_live_0123456789abcdefghijklmnopqrstuvwxyz'],
  ['bad_shape', good.slice(0, -3)],
  ['bad_checksum', flipped],
];

describe('offline API key checks (spec rule 8)', () => {
  it.each(BAD_KEYS)('refuses a %s key (%j) before any request', async (problem, key) => {
    server.use(http.all('*', () => HttpResponse.json({})));
    // An empty string rather than undefined keeps TESTREPORT_API_KEY from the environment out of the test.
    const client = mockClient({ apiKey: key ?? '' });
    for (const call of [() => client.runs.create({ projectId: 'p', status: 'running' }), () => client.me(), () => client.verify({ projectId: 'p' })]) {
      const err = await call().catch((e) => e);
      expect(err).toBeInstanceOf(KeyValidationError);
      expect(err.problem).toBe(problem);
      expect(err.message).toBe(KEY_PROBLEM_MESSAGES[problem]);
    }
    expect(seen).toHaveLength(0);
  });

  it('sends a well-formed key', async () => {
    server.use(http.get(`${MOCK_BASE}/me`, () => HttpResponse.json({ type: 'apiKey' })));
    await mockClient({ apiKey: good }).me();
    expect(seen[0]!.headers.get('x-api-key')).toBe(good);
  });

  it('reads TESTREPORT_API_KEY when no key or cookie is passed', async () => {
    server.use(http.get(`${MOCK_BASE}/me`, () => HttpResponse.json({ type: 'apiKey' })));
    const before = process.env.TESTREPORT_API_KEY;
    process.env.TESTREPORT_API_KEY = good;
    try {
      await mockClient({ apiKey: undefined }).me();
    } finally {
      if (before === undefined) delete process.env.TESTREPORT_API_KEY;
      else process.env.TESTREPORT_API_KEY = before;
    }
    expect(seen[0]!.headers.get('x-api-key')).toBe(good);
  });

  it('refuses a user-only action without a session, before any request', async () => {
    const err = await mockClient({ apiKey: '' }).teams.list().catch((e) => e);
    expect(err).toBeInstanceOf(AuthenticationError);
    expect(err.message).toContain('auth.login');
    expect(seen).toHaveLength(0);
  });
});

describe('transport security (docs/decisions.md §11)', () => {
  it('knows loopback hosts', () => {
    for (const h of ['localhost', 'app.localhost', '127.0.0.1', '127.8.9.10', '[::1]', '::1']) expect(isLoopbackHost(h)).toBe(true);
    for (const h of ['example.com', '10.0.0.1', '128.0.0.1', 'localhost.example.com', '[::2]']) expect(isLoopbackHost(h)).toBe(false);
  });

  it('refuses to send a key, cookie or password over http:// to a remote host', async () => {
    server.use(http.all('*', () => HttpResponse.json({})));
    const url = 'http://reports.example.com';
    const calls = [
      () => mockClient({ url }).me(),
      () => mockClient({ url, apiKey: undefined, sessionCookie: 'tok' }).runs.get('r'),
      () => mockClient({ url }).auth.login({ email: 'a@b.test', password: 'secret-password' }),
    ];
    for (const call of calls) {
      const err = await call().catch((e) => e);
      expect(err).toBeInstanceOf(InsecureTransportError);
      expect(err.message).toContain('reports.example.com');
      expect(err.message).toContain('allowInsecureHttp');
    }
    expect(seen).toHaveLength(0);
  });

  it('sends over http:// to loopback addresses', async () => {
    server.use(http.get('*/api/v1/me', () => HttpResponse.json({ type: 'apiKey' })));
    for (const url of ['http://localhost:4000', 'http://127.0.0.1:4000', 'http://[::1]:4000']) await mockClient({ url }).me();
    expect(seen).toHaveLength(3);
  });

  it('lets a public call without credentials through over http://', async () => {
    server.use(http.post('http://reports.example.com/auth/forgot-password', () => HttpResponse.json({ message: 'ok' })));
    await mockClient({ url: 'http://reports.example.com' }).auth.forgotPassword({ email: 'a@b.test' });
    expect(seen).toHaveLength(1);
  });

  it('with allowInsecureHttp sends, and warns once per client', async () => {
    server.use(http.get('http://reports.example.com/api/v1/me', () => HttpResponse.json({ type: 'apiKey' })));
    const warnings: string[] = [];
    const client = mockClient({ url: 'http://reports.example.com', allowInsecureHttp: true, warn: (m) => warnings.push(m) });
    await client.me();
    await client.me();
    expect(seen).toHaveLength(2);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain('plain http://');
  });
});
