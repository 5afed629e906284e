import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRun, postTests, startTestServer, testBody, type TestServer } from '@testreport/server/testing';
import type { SearchHit, TestReportClient } from '@testreport/client';
import { clientFor } from './realServer.js';

/*
 * Titles are indexed once per test case (migration 018) and found through the results of the
 * matching cases. Known truth: 3 runs (main, main, feature/y) of 100 "checkout step N" cases and
 * 10 "login step N" cases; in the last run "login step 3" fails with an error that repeats its
 * title. Few matching cases are read case by case, many by walking the newest results: both must
 * list every result of the cases, newest first, each once.
 */
let t: TestServer;
let sdk: TestReportClient;
let clock = new Date('2026-11-10T08:00:00.000Z');
/** Stored result ids, newest first. */
const stored: { id: string; title: string; branch: string }[] = [];

beforeAll(async () => {
  t = await startTestServer({ now: () => clock });
  sdk = clientFor(t, t.apiKey);
  for (const [i, branch] of ['main', 'main', 'feature/y'].entries()) {
    clock = new Date(Date.UTC(2026, 10, 10 + i, 8));
    const run = await createRun(t, { branch });
    const titles = [...Array.from({ length: 100 }, (_, n) => `checkout step ${n}`), ...Array.from({ length: 10 }, (_, n) => `login step ${n}`)];
    const bodies = titles.map((title) =>
      testBody(run.id, t.projectId, {
        title, fullTitle: `shop > ${title}`, filePath: 'tests/shop.spec.ts',
        ...(i === 2 && title === 'login step 3' ? { status: 'failed', error: { message: 'Error: login step 3 exploded' } } : { status: 'passed', error: undefined }),
      }));
    const out = await postTests(t, bodies);
    out.forEach((r, n) => stored.unshift({ id: r!.id, title: titles[n]!, branch }));
  }
  stored.sort((a, b) => (a.id < b.id ? 1 : -1));
}, 120_000);
afterAll(() => t?.close());

const expected = (pred: (s: (typeof stored)[number]) => boolean) => stored.filter(pred).map((s) => s.id);
const idsOf = (hits: SearchHit[]) => hits.map((h) => h.testId);
async function everything(q: Parameters<TestReportClient['search']['query']>[0]) {
  const all: SearchHit[] = [];
  for await (const h of sdk.search.iterate({ ...q, limit: 40 })) all.push(h);
  return all;
}

describe('GET /search by title, through test cases', () => {
  it('finds every result of many matching cases, newest first, and pages through them', async () => {
    const want = expected((s) => s.title.startsWith('checkout step'));
    const first = await sdk.search.query({ projectId: t.projectId, q: 'checkout step', in: 'titles', limit: 50 });
    expect(first.total).toBe(300);
    expect(idsOf(first.data)).toEqual(want.slice(0, 50));
    expect(first.data[0]!.snippet).toMatchObject({ in: 'titles', text: expect.stringContaining('checkout step') });
    expect(idsOf(await everything({ projectId: t.projectId, q: 'checkout step', in: 'titles' }))).toEqual(want);
    const main = await everything({ projectId: t.projectId, q: 'Checkout Step', branch: 'main' });
    expect(idsOf(main)).toEqual(expected((s) => s.branch === 'main' && s.title.startsWith('checkout step')));
  });

  it('finds every result of a few matching cases, newest first', async () => {
    const res = await sdk.search.query({ projectId: t.projectId, q: 'login step', in: 'titles', limit: 100 });
    expect(res.total).toBe(30);
    expect(idsOf(res.data)).toEqual(expected((s) => s.title.startsWith('login step')));
    const since = await sdk.search.query({ projectId: t.projectId, q: 'login step 7', since: '2026-11-11T00:00:00Z' });
    expect(idsOf(since.data)).toEqual(expected((s) => s.title === 'login step 7').slice(0, 2));
    const feature = await sdk.search.query({ projectId: t.projectId, q: 'CHECKOUT STEP 1', branch: 'feature/y', limit: 100 });
    expect(idsOf(feature.data)).toEqual(expected((s) => s.branch === 'feature/y' && /^checkout step 1\d?$/.test(s.title)));
    expect(feature.total).toBe(11);
  });

  it('counts a result found by its title and its error once', async () => {
    const res = await sdk.search.query({ projectId: t.projectId, q: 'login step 3' });
    expect(res.total).toBe(3);
    expect(idsOf(res.data)).toEqual(expected((s) => s.title === 'login step 3'));
    expect(res.data[0]!.snippet.in).toBe('titles');
    expect(idsOf((await sdk.search.query({ projectId: t.projectId, q: 'login step 3', in: 'errors' })).data)).toEqual(expected((s) => s.title === 'login step 3').slice(0, 1));
  });
});
