import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRun, postTests, startTestServer, testBody, type TestServer } from '@testreport/server/testing';
import type { SearchHit, TestReportClient } from '@testreport/client';
import { clientFor } from './realServer.js';

/*
 * Search over a generated history whose truth is known: one run a day on main (Nov 1–6) and one on
 * feature/x (Nov 3, noon). ECONNRESET appears in an error (runs 2 and 4 and the feature run), in
 * stdout (run 5), lower-case in stderr (run 6) and in a title (run 1).
 */
let t: TestServer;
let sdk: TestReportClient;
let clock = new Date('2026-11-01T08:00:00.000Z');
const ids: Record<string, string> = {};

const at = (day: number, hour = 8) => (clock = new Date(Date.UTC(2026, 10, day, hour)));
async function runWith(day: number, name: string, over: Record<string, unknown>, branch = 'main', hour = 8) {
  at(day, hour);
  const run = await createRun(t, { branch, commitSha: `c-${name}` });
  const [stored, plain] = await postTests(t, [
    testBody(run.id, t.projectId, { title: `case ${name}`, fullTitle: `api > case ${name}`, filePath: 'tests/api.spec.ts', ...over }),
    testBody(run.id, t.projectId, { title: 'unrelated', fullTitle: 'api > unrelated', stdout: 'all fine', error: undefined }),
  ]);
  expect(plain).toBeDefined();
  ids[name] = stored!.id;
}
const failed = (message: string) => ({ status: 'failed', error: { message } });

beforeAll(async () => {
  t = await startTestServer({ now: () => clock });
  sdk = clientFor(t, t.apiKey);
  await runWith(1, 'title', { title: 'survives an ECONNRESET storm', fullTitle: 'network > survives an ECONNRESET storm' });
  await runWith(2, 'error2', failed('Error: read ECONNRESET 10.0.0.1:443\n    at TCP.onStreamRead'));
  await runWith(3, 'feature', failed('Error: read ECONNRESET 10.0.0.9:443'), 'feature/x', 12);
  await runWith(4, 'error4', failed('Error: read ECONNRESET 10.0.0.4:443'));
  await runWith(5, 'stdout', { stdout: `${'x'.repeat(500)} retrying after ECONNRESET (attempt 2) ${'y'.repeat(500)}` });
  await runWith(6, 'stderr', { stderr: 'socket hang up: econnreset <script>alert(1)</script>' });
}, 120_000);
afterAll(() => t?.close());

const names = (hits: SearchHit[]) => hits.map((h) => Object.entries(ids).find(([, id]) => id === h.testId)?.[0]);
const marked = (h: SearchHit) => h.snippet.highlights.map((r) => h.snippet.text.slice(r.start, r.end));

describe('GET /search (SDK)', () => {
  it('finds the text in titles, errors and output across runs, newest first, with highlighted snippets', async () => {
    const res = await sdk.search.query({ projectId: t.projectId, q: 'ECONNRESET' });
    expect(names(res.data)).toEqual(['stderr', 'stdout', 'error4', 'feature', 'error2', 'title']);
    expect(res.total).toBe(6);
    const [stderr, stdout, error4] = res.data;
    expect(stderr).toMatchObject({ runId: expect.any(String), branch: 'main', commitSha: 'c-stderr', status: 'passed', createdAt: '2026-11-06T08:00:00.000Z' });
    // Plain text with offsets: markup in the output stays text for the client to escape.
    expect(stderr!.snippet).toEqual({ in: 'output', text: 'socket hang up: econnreset <script>alert(1)</script>', highlights: [{ start: 16, end: 26 }] });
    expect(stdout!.snippet.in).toBe('output');
    expect(stdout!.snippet.text.startsWith('…')).toBe(true);
    expect(stdout!.snippet.text.endsWith('…')).toBe(true);
    expect(stdout!.snippet.text.length).toBeLessThan(300);
    expect(marked(stdout!)).toEqual(['ECONNRESET']);
    expect(error4!.snippet).toMatchObject({ in: 'errors', text: 'Error: read ECONNRESET 10.0.0.4:443' });
    expect(marked(res.data[5]!)).toEqual(['ECONNRESET']);
    expect(res.data[5]!.snippet.in).toBe('titles');
  });

  it('looks only in the fields asked for', async () => {
    expect(names((await sdk.search.query({ projectId: t.projectId, q: 'econnreset', in: 'errors' })).data)).toEqual(['error4', 'feature', 'error2']);
    expect(names((await sdk.search.query({ projectId: t.projectId, q: 'econnreset', in: 'output' })).data)).toEqual(['stderr', 'stdout']);
    expect(names((await sdk.search.query({ projectId: t.projectId, q: 'econnreset', in: 'titles' })).data)).toEqual(['title']);
    expect(names((await sdk.search.query({ projectId: t.projectId, q: 'econnreset', in: 'titles,output' })).data)).toEqual(['stderr', 'stdout', 'title']);
  });

  it('finds any substring of three characters or more, punctuation and quotes taken literally', async () => {
    expect(names((await sdk.search.query({ projectId: t.projectId, q: 'CONNRES', in: 'errors' })).data)).toEqual(['error4', 'feature', 'error2']);
    expect(names((await sdk.search.query({ projectId: t.projectId, q: '10.0.0.1:443' })).data)).toEqual(['error2']);
    expect((await sdk.search.query({ projectId: t.projectId, q: '"ECONN%' })).total).toBe(0);
    expect((await sdk.search.query({ projectId: t.projectId, q: 'nothing like this' })).data).toEqual([]);
  });

  it('filters by branch and time, and pages', async () => {
    expect(names((await sdk.search.query({ projectId: t.projectId, q: 'ECONNRESET', branch: 'feature/x' })).data)).toEqual(['feature']);
    expect(names((await sdk.search.query({ projectId: t.projectId, q: 'ECONNRESET', since: '2026-11-04T00:00:00Z' })).data)).toEqual(['stderr', 'stdout', 'error4']);
    const page = await sdk.search.query({ projectId: t.projectId, q: 'ECONNRESET', limit: 2, offset: 2 });
    expect({ names: names(page.data), total: page.total }).toEqual({ names: ['error4', 'feature'], total: 6 });
    const all: SearchHit[] = [];
    for await (const h of sdk.search.iterate({ projectId: t.projectId, q: 'ECONNRESET', limit: 4 })) all.push(h);
    expect(all).toHaveLength(6);
  });

  it('answers 400 naming the field for an empty or short text and an unknown field', async () => {
    await expect(sdk.search.query({ projectId: t.projectId, q: '' })).rejects.toMatchObject({ status: 400, details: { field: 'q' } });
    await expect(sdk.search.query({ projectId: t.projectId, q: 'ab' })).rejects.toMatchObject({ status: 400, details: { field: 'q' } });
    await expect(sdk.search.query({ projectId: t.projectId, q: 'ECON\u0000' })).rejects.toMatchObject({ status: 400, details: { field: 'q' } });
    await expect(sdk.search.query({ projectId: t.projectId, q: 'ECONNRESET', in: 'bodies' })).rejects.toMatchObject({ status: 400, details: { field: 'in' } });
  });

  it('lets a viewer search and keeps other teams out', async () => {
    const viewer = await t.createUser({ teamId: t.teamId, role: 'viewer' });
    expect((await clientFor(t, viewer).search.query({ projectId: t.projectId, q: 'ECONNRESET' })).total).toBe(6);
    const other = await t.createOtherTenant();
    await expect(clientFor(t, other.apiKey).search.query({ projectId: t.projectId, q: 'ECONNRESET' })).rejects.toMatchObject({ status: 403 });
    const stranger = await t.createUser();
    await expect(clientFor(t, stranger).search.query({ projectId: t.projectId, q: 'ECONNRESET' })).rejects.toMatchObject({ status: 403 });
  });

  it('no longer finds results retention deleted', async () => {
    await clientFor(t, t.owner).projects.updateSettings(t.projectId, { dataRetentionDays: 2 });
    at(6, 9);
    expect((await t.server.services.retention.sweepOnce()).deletedRuns).toBe(4);
    const res = await sdk.search.query({ projectId: t.projectId, q: 'ECONNRESET' });
    expect(names(res.data)).toEqual(['stderr', 'stdout']);
    expect(res.total).toBe(2);
  });
});
