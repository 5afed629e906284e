import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '@testreport/server/testing';

let t: TestServer;
let clock = Date.parse('2026-01-01T00:00:00Z');
let otherKey: string;

beforeAll(async () => {
  t = await startTestServer({ rateLimits: true, now: () => new Date(clock) });
  otherKey = (await t.server.services.apiKeys.mint({ projectId: t.projectId, name: 'second' })).key;
});
afterAll(async () => {
  await t?.close();
});

const createRun = (key: string) => t.api('POST', '/runs', { auth: key, body: { projectId: t.projectId, status: 'running' } });

describe('rate limits (spec part 8, docs/decisions.md §9)', () => {
  it('allows 30 run writes a minute per key, then answers 429 with Retry-After', async () => {
    for (let i = 1; i <= 30; i++) {
      const res = await createRun(t.apiKey);
      expect(res.status).toBe(201);
      expect(res.headers.get('ratelimit-limit')).toBe('30');
      expect(res.headers.get('ratelimit-remaining')).toBe(String(30 - i));
    }
    const limited = await createRun(t.apiKey);
    expect(limited.status).toBe(429);
    expect(limited.body.error.code).toBe('RATE_LIMITED');
    const retryAfter = Number(limited.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(limited.headers.get('ratelimit-remaining')).toBe('0');
  });

  it('counts another key of the same project separately', async () => {
    expect((await createRun(otherKey)).status).toBe(201);
  });

  it('keeps reads in their own group', async () => {
    const res = await t.api('GET', `/runs?projectId=${t.projectId}`, { auth: t.apiKey });
    expect(res.status).toBe(200);
    expect(res.headers.get('ratelimit-limit')).toBe('100');
  });

  it('does not limit GET /me', async () => {
    const res = await t.api('GET', '/me', { auth: t.apiKey });
    expect(res.status).toBe(200);
    expect(res.headers.get('ratelimit-limit')).toBeNull();
  });

  it('opens a new window after a minute', async () => {
    clock += 61_000;
    expect((await createRun(t.apiKey)).status).toBe(201);
  });

  it('limits session callers per user, apart from API keys', async () => {
    const user = await t.createUser({ teamId: t.teamId, role: 'member' });
    const asUser = () => t.api('POST', '/runs', { auth: user, body: { projectId: t.projectId, status: 'running' } });
    for (let i = 0; i < 30; i++) expect((await asUser()).status).toBe(201);
    expect((await asUser()).status).toBe(429);
  });
});
