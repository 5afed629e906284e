import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../testing/harness.js';

let now = new Date('2030-03-01T10:00:00.000Z');
let t: TestServer;
beforeAll(async () => {
  t = await startTestServer({ now: () => now });
});
afterAll(async () => {
  await t?.close();
});

const advance = (ms: number) => {
  now = new Date(now.getTime() + ms);
};

async function createKey(body: Record<string, unknown> = {}) {
  const res = await t.api('POST', '/api-keys', { auth: t.owner, body: { projectId: t.projectId, name: 'ci', ...body } });
  expect(res.status).toBe(201);
  return res.body as { id: string; key: string; name: string; isActive: boolean; expiresAt: string | null };
}

async function listed(id: string) {
  const res = await t.api('GET', `/api-keys?projectId=${t.projectId}`, { auth: t.owner });
  return res.body.data.find((k: { id: string }) => k.id === id);
}

/** Calls across resources: a key that is refused must be refused on all of them. */
const calls = (key: string) => [
  t.api('GET', '/me', { auth: key }),
  t.api('GET', `/projects/${t.projectId}`, { auth: key }),
  t.api('GET', `/projects/${t.projectId}/settings`, { auth: key }),
  t.api('GET', `/api-keys?projectId=${t.projectId}`, { auth: key }),
  t.api('GET', `/runs?projectId=${t.projectId}`, { auth: key }),
  t.api('POST', '/runs', { auth: key, body: { projectId: t.projectId, status: 'running' } }),
];

describe('API key lifecycle', () => {
  it('works immediately after creation and is returned in full only then', async () => {
    const created = await createKey({ name: 'fresh' });
    expect(created.key).toMatch(/^trk_live_[0-9A-Za-z]{38}$/);
    expect(created.isActive).toBe(true);
    const me = await t.api('GET', '/me', { auth: created.key });
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ type: 'apiKey', apiKey: { id: created.id, name: 'fresh', projectId: t.projectId } });
    expect(await listed(created.id)).not.toHaveProperty('key');
  });

  it('is refused on every call while deactivated and works again once reactivated', async () => {
    const { id, key } = await createKey();
    const off = await t.api('PATCH', `/api-keys/${id}`, { auth: t.owner, body: { isActive: false } });
    expect(off.status).toBe(200);
    expect(off.body).toMatchObject({ id, isActive: false });
    for (const res of await Promise.all(calls(key))) {
      expect(res.status).toBe(401);
      expect(res.body.error).toMatchObject({ code: 'UNAUTHORIZED', message: expect.stringMatching(/deactivated/) });
    }
    expect((await listed(id)).isActive).toBe(false);

    expect((await t.api('PATCH', `/api-keys/${id}`, { auth: t.owner, body: { isActive: true } })).body.isActive).toBe(true);
    for (const res of await Promise.all(calls(key))) expect(res.status).toBeLessThan(300);
  });

  it('refuses malformed keys with a message that says what is wrong', async () => {
    const { key } = await createKey();
    const last = key.at(-1)!;
    const cases: Array<[string, RegExp]> = [
      ['your-api-key', /placeholder/],
      ['test-key', /placeholder/],
      ['trk_live_abc', /shorter than 16/],
      [`${key.slice(0, 20)} ${key.slice(20)}`, /whitespace/],
      [key.slice(0, -1) + (last === 'A' ? 'B' : 'A'), /checksum/],
      ['sk_live_0123456789abcdefghij', /does not look like/],
    ];
    const messages = new Set<string>();
    for (const [value, pattern] of cases) {
      const res = await t.api('GET', '/me', { auth: value });
      expect(res.status, value).toBe(401);
      expect(res.body.error.code).toBe('UNAUTHORIZED');
      expect(res.body.error.message, value).toMatch(pattern);
      messages.add(res.body.error.message);
    }
    expect(messages.size).toBe(5);
  });

  it('refuses a deleted key', async () => {
    const { id, key } = await createKey();
    expect((await t.api('DELETE', `/api-keys/${id}`, { auth: t.owner })).status).toBe(200);
    const res = await t.api('GET', '/me', { auth: key });
    expect(res.status).toBe(401);
    expect(res.body.error.message).toMatch(/no such key/);
  });

  it('allows several active keys on one project, each switched on its own', async () => {
    const a = await createKey({ name: 'a' });
    const b = await createKey({ name: 'b' });
    expect((await t.api('GET', '/me', { auth: a.key })).status).toBe(200);
    expect((await t.api('GET', '/me', { auth: b.key })).status).toBe(200);
    await t.api('PATCH', `/api-keys/${a.id}`, { auth: t.owner, body: { isActive: false } });
    expect((await t.api('GET', '/me', { auth: a.key })).status).toBe(401);
    expect((await t.api('GET', '/me', { auth: b.key })).status).toBe(200);
    expect((await t.api('GET', '/me', { auth: t.apiKey })).status).toBe(200);
  });

  it('records lastUsedAt on use, at most once a minute', async () => {
    const { id, key } = await createKey();
    expect((await listed(id)).lastUsedAt).toBeNull();
    const first = now.toISOString();
    await t.api('GET', '/me', { auth: key });
    expect((await listed(id)).lastUsedAt).toBe(first);
    advance(30_000);
    await t.api('GET', '/me', { auth: key });
    expect((await listed(id)).lastUsedAt).toBe(first);
    advance(31_000);
    await t.api('GET', '/me', { auth: key });
    expect((await listed(id)).lastUsedAt).toBe(now.toISOString());
  });

  it('masks keys in lists: prefix, asterisks, last four characters, never the secret part', async () => {
    const { id, key } = await createKey();
    const secret = key.slice('trk_live_'.length, -4);
    for (const auth of [t.owner, key] as const) {
      const res = await t.api('GET', `/api-keys?projectId=${t.projectId}`, { auth });
      expect(res.status).toBe(200);
      const raw = JSON.stringify(res.body);
      expect(raw).not.toContain(secret);
      expect(raw).not.toContain(key);
      const mine = res.body.data.find((k: { id: string }) => k.id === id);
      expect(mine.maskedKey).toMatch(/^trk_live_\*+[0-9A-Za-z]{4}$/);
      expect(mine.maskedKey.endsWith(key.slice(-4))).toBe(true);
      for (const k of res.body.data) expect(Object.keys(k)).not.toContain('key');
    }
  });

  it('stops working when the clock reaches expiresAt (last: it moves the clock past every session)', async () => {
    const expiresAt = new Date(now.getTime() + 3600_000).toISOString();
    const { key } = await createKey({ expiresAt });
    expect((await t.api('GET', '/me', { auth: key })).body.apiKey.expiresAt).toBe(expiresAt);
    advance(3600_000 - 1000);
    expect((await t.api('GET', '/me', { auth: key })).status).toBe(200);
    advance(1000);
    for (const res of await Promise.all(calls(key))) {
      expect(res.status).toBe(401);
      expect(res.body.error.message).toMatch(/expired/);
    }
    const forever = await createKey({ expiresAt: null });
    advance(10 * 365 * 24 * 3600_000);
    expect((await t.api('GET', '/me', { auth: forever.key })).status).toBe(200);
  });
});
