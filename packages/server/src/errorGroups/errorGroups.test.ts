import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../testing/harness.js';
import { createRun, postTests, testBody } from '../testing/results.js';
import { fingerprintOf } from './fingerprint.js';

/*
 * Error groups across a generated history whose truth is known: 12 daily runs on main. From run 10
 * (commit c10) "checkout" fails with ECONNRESET (a different address each time, one group) and
 * keeps failing; "pays" fails with the same message in another file (another group); a timeout
 * hits "search" in run 3 and on a feature branch run in between.
 */
let t: TestServer;
let clock = new Date('2026-11-01T08:00:00.000Z');
const runs: { id: string; commit: string; day: string }[] = [];
let featureRun = '';

const reset = (n: number) => `\u001b[31mError: read ECONNRESET 10.0.0.${n}:${5000 + n}\u001b[39m\n    at TCP.onStreamRead`;

beforeAll(async () => {
  t = await startTestServer({ now: () => clock });
  for (let i = 1; i <= 12; i++) {
    clock = new Date(Date.UTC(2026, 10, i, 8));
    const commit = `c${i}`;
    const run = await createRun(t, { branch: 'main', commitSha: commit });
    const fail = (message: string) => ({ status: 'failed', error: { message } });
    await postTests(t, [
      testBody(run.id, t.projectId, { title: 'checkout', fullTitle: 'shop > checkout', filePath: 'tests/shop.spec.ts', ...(i >= 10 ? fail(reset(i)) : {}) }),
      testBody(run.id, t.projectId, { title: 'pays', fullTitle: 'pay > pays', filePath: 'tests/pay.spec.ts', ...(i === 12 ? fail(reset(99)) : {}) }),
      testBody(run.id, t.projectId, { title: 'search', fullTitle: 'shop > search', filePath: 'tests/search.spec.ts', ...(i === 3 ? fail('Timed out 5000ms waiting for locator("#q")') : {}) }),
    ]);
    await t.api('PATCH', `/runs/${run.id}`, { auth: t.apiKey, body: { status: i >= 10 ? 'failed' : 'passed' } });
    runs.push({ id: run.id, commit, day: clock.toISOString().slice(0, 10) });
    if (i === 5) {
      featureRun = (await createRun(t, { branch: 'feature/q', commitSha: 'f1' })).id;
      await postTests(t, [testBody(featureRun, t.projectId, { title: 'search', fullTitle: 'shop > search', filePath: 'tests/search.spec.ts', status: 'failed', error: { message: 'Timed out 30000ms waiting for locator("#query")' } })]);
    }
  }
}, 120_000);
afterAll(() => t?.close());

const RESET_SHOP = fingerprintOf(reset(1), 'tests/shop.spec.ts')!;
const RESET_PAY = fingerprintOf(reset(1), 'tests/pay.spec.ts')!;
const TIMEOUT = fingerprintOf('Timed out 1ms waiting for locator("x")', 'tests/search.spec.ts')!;

describe('fingerprintOf', () => {
  it('masks what differs between occurrences of one error and keeps the file apart', () => {
    expect(fingerprintOf(reset(1), 'a.ts')).toBe(fingerprintOf(reset(2), 'a.ts'));
    expect(fingerprintOf(reset(1), 'a.ts')).not.toBe(fingerprintOf(reset(1), 'b.ts'));
    expect(fingerprintOf('ENOENT: /tmp/pw-abc123/trace.zip', null)).toBe(fingerprintOf('ENOENT: /tmp/pw-xyz999/other/trace.zip', null));
    expect(fingerprintOf('Error: a', 'x')).toMatch(/^[0-9a-f]{16}$/);
    expect(fingerprintOf(null, 'x')).toBeNull();
  });
});

describe('GET /errors', () => {
  it('lists groups most recently seen first with occurrences, tests, runs, first and last seen', async () => {
    const res = await t.api('GET', `/errors?projectId=${t.projectId}`, { auth: t.apiKey });
    expect(res.status).toBe(200);
    expect(res.body.total).toBe(3);
    const [pay, shop, timeout] = res.body.data;
    expect([pay.fingerprint, shop.fingerprint, timeout.fingerprint]).toEqual([RESET_PAY, RESET_SHOP, TIMEOUT]);
    expect(shop).toMatchObject({
      message: 'Error: read ECONNRESET 10.0.0.12:5012', filePath: 'tests/shop.spec.ts', occurrences: 3, tests: 1, runs: 3,
      firstSeen: { runId: runs[9].id, commitSha: 'c10', branch: 'main', at: '2026-11-10T08:00:00.000Z' },
      lastSeen: { runId: runs[11].id, commitSha: 'c12', branch: 'main', at: '2026-11-12T08:00:00.000Z' },
    });
    expect(pay).toMatchObject({ occurrences: 1, runs: 1, firstSeen: { commitSha: 'c12' } });
    expect(timeout).toMatchObject({ occurrences: 2, tests: 1, runs: 2, firstSeen: { commitSha: 'c3', branch: 'main' }, lastSeen: { runId: featureRun, branch: 'feature/q', commitSha: 'f1' } });
  });

  it('filters by branch, time and text, and pages', async () => {
    const list = async (query: string) => (await t.api('GET', `/errors?projectId=${t.projectId}&${query}`, { auth: t.apiKey })).body;
    const feature = await list('branch=feature%2Fq');
    expect(feature.data.map((g: { fingerprint: string }) => g.fingerprint)).toEqual([TIMEOUT]);
    expect(feature.data[0]).toMatchObject({ occurrences: 1, firstSeen: { runId: featureRun } });
    const window = await list('since=2026-11-11T00:00:00Z&until=2026-11-12T00:00:00Z');
    expect(window.data).toEqual([expect.objectContaining({ fingerprint: RESET_SHOP, occurrences: 1, firstSeen: expect.objectContaining({ commitSha: 'c11' }) })]);
    expect((await list('q=econnreset')).total).toBe(2);
    // A text counts the occurrences whose own message holds it: one of shop's three, found through
    // the search index; a two-character text, too short for trigrams, by comparing every failure.
    expect((await list('q=10.0.0.11%3A')).data).toEqual([expect.objectContaining({ fingerprint: RESET_SHOP, occurrences: 1, runs: 1, firstSeen: expect.objectContaining({ commitSha: 'c11' }) })]);
    expect((await list(`q=${encodeURIComponent('#Q')}`)).data).toEqual([expect.objectContaining({ fingerprint: TIMEOUT, occurrences: 2, runs: 2 })]);
    expect((await list('q=onStreamRead&branch=main&since=2026-11-12T00:00:00Z')).data).toEqual([
      expect.objectContaining({ fingerprint: RESET_PAY, occurrences: 1 }),
      expect.objectContaining({ fingerprint: RESET_SHOP, occurrences: 1 }),
    ]);
    const page = await list('limit=1&offset=1');
    expect(page).toMatchObject({ total: 3, limit: 1, offset: 1 });
    expect(page.data[0].fingerprint).toBe(RESET_SHOP);
    const bad = await t.api('GET', `/errors?projectId=${t.projectId}&since=yesterday`, { auth: t.apiKey });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details.field).toBe('since');
  });
});

describe('GET /errors/:fingerprint', () => {
  it('adds the daily series and the test cases it hits', async () => {
    const res = await t.api('GET', `/errors/${RESET_SHOP}?projectId=${t.projectId}`, { auth: t.apiKey });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ fingerprint: RESET_SHOP, occurrences: 3, firstSeen: { commitSha: 'c10' } });
    expect(res.body.daily).toEqual([
      { date: '2026-11-10', occurrences: 1 },
      { date: '2026-11-11', occurrences: 1 },
      { date: '2026-11-12', occurrences: 1 },
    ]);
    expect(res.body.testCases).toEqual([{ testId: expect.any(String), fullTitle: 'shop > checkout', filePath: 'tests/shop.spec.ts', occurrences: 3, lastRunId: runs[11].id }]);
  });

  it('is 404 for an unknown fingerprint, 400 for a malformed one, and readable by a viewer only in its project', async () => {
    expect((await t.api('GET', `/errors/0000000000000000?projectId=${t.projectId}`, { auth: t.apiKey })).status).toBe(404);
    const bad = await t.api('GET', `/errors/xyz?projectId=${t.projectId}`, { auth: t.apiKey });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details.field).toBe('fingerprint');
    const viewer = await t.createUser({ teamId: t.teamId, role: 'viewer' });
    expect((await t.api('GET', `/errors/${RESET_SHOP}?projectId=${t.projectId}`, { auth: viewer })).status).toBe(200);
    const other = await t.createOtherTenant();
    expect((await t.api('GET', `/errors?projectId=${t.projectId}`, { auth: other.apiKey })).status).toBe(403);
    expect((await t.api('GET', `/errors/${RESET_SHOP}?projectId=${other.projectId}`, { auth: other.apiKey })).status).toBe(404);
  });
});

describe('run summaries', () => {
  it('mark a failure whose error first occurred in the run as new, and an older one with where it was first seen', async () => {
    const first = (await t.api('GET', `/runs/${runs[9].id}/summary`, { auth: t.apiKey })).body;
    expect(first.failed.items[0]).toMatchObject({ fullTitle: 'shop > checkout', newError: true, errorFirstSeen: null });
    const last = (await t.api('GET', `/runs/${runs[11].id}/summary`, { auth: t.apiKey })).body;
    const byTitle = Object.fromEntries(last.failed.items.map((i: { fullTitle: string }) => [i.fullTitle, i]));
    expect(byTitle['shop > checkout']).toMatchObject({ newError: false, errorFirstSeen: { runId: runs[9].id, commitSha: 'c10', branch: 'main', at: '2026-11-10T08:00:00.000Z', runs: 3 } });
    expect(byTitle['pay > pays']).toMatchObject({ newError: true, errorFirstSeen: null });
  });
});

describe('retention', () => {
  it('takes the occurrences of deleted runs out of every group; a group with none left is gone', async () => {
    expect((await t.api('PATCH', `/projects/${t.projectId}/settings`, { auth: t.owner, body: { dataRetentionDays: 7 } })).status).toBe(200);
    clock = new Date('2026-11-15T09:00:00.000Z');
    expect((await t.server.services.retention.sweepOnce()).deletedRuns).toBeGreaterThanOrEqual(8);
    const res = await t.api('GET', `/errors?projectId=${t.projectId}`, { auth: t.apiKey });
    expect(res.body.data.map((g: { fingerprint: string }) => g.fingerprint)).toEqual([RESET_PAY, RESET_SHOP]);
    expect(res.body.data[1]).toMatchObject({ occurrences: 3, firstSeen: { commitSha: 'c10' } });
    expect((await t.api('GET', `/errors/${TIMEOUT}?projectId=${t.projectId}`, { auth: t.apiKey })).status).toBe(404);
  });
});
