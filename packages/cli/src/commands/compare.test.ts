import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRun, postTests, startTestServer, testBody, type TestServer } from '@testreport/server/testing';
import { Output } from '../lib/output.js';
import { keyContext } from '../testing/context.js';
import { compareRuns, printComparison } from './compare.js';

let srv: TestServer;
let base: string;
let run: string;

const result = (runId: string, title: string, status: string, duration: number) =>
  testBody(runId, srv.projectId, { title, fullTitle: `cart > ${title}`, filePath: 'tests/cart.spec.ts', status, duration, ...(status === 'failed' ? { error: { message: `Error: ${title} failed` } } : {}) });

beforeAll(async () => {
  srv = await startTestServer();
  base = (await createRun(srv, { branch: 'main', commitSha: 'aaaaaaaa11' })).id;
  await postTests(srv, [result(base, 'pays', 'passed', 1000), result(base, 'adds', 'failed', 10), result(base, 'old', 'passed', 10)]);
  run = (await createRun(srv, { branch: 'feature/pay', commitSha: 'bbbbbbbb22' })).id;
  await postTests(srv, [result(run, 'pays', 'failed', 2000), result(run, 'adds', 'passed', 10), result(run, 'new', 'passed', 10)]);
});
afterAll(() => srv?.close());

describe('reporter runs compare', () => {
  it('returns the server comparison and prints each list with its count, errors and durations', async () => {
    const c = await compareRuns(keyContext(srv), { runId: run, baseId: base });
    expect(c.newFailures.items.map((t) => t.fullTitle)).toEqual(['cart > pays']);
    expect(c.slower.items[0]).toMatchObject({ duration: 2000, baseDuration: 1000 });
    let text = '';
    const sink = new Writable({ write: (chunk, _e, done) => ((text += String(chunk)), done()) });
    printComparison(new Output(false, 0, sink, sink), c);
    expect(text).toContain(`run   ${run} (feature/pay @ bbbbbbbb, running, 1 failed)`);
    expect(text).toContain(`base  ${base} (main @ aaaaaaaa, running, 1 failed)`);
    expect(text).toMatch(/New failures \(1\)\n {2}cart > pays {2}tests\/cart\.spec\.ts {2}Error: pays failed\n/);
    expect(text).toMatch(/Fixed \(1\)\n {2}cart > adds/);
    expect(text).toMatch(/Added \(1\)\n {2}cart > new/);
    expect(text).toMatch(/Removed \(1\)\n {2}cart > old/);
    expect(text).toMatch(/Slower \(1\)\n {2}cart > pays {2}tests\/cart\.spec\.ts {2}1\.0s → 2\.0s/);
    expect(text).toContain('Faster (0)');
  });

  it('cuts lists with --limit and says how many more there are', async () => {
    const c = await compareRuns(keyContext(srv), { runId: run, baseId: base, limit: 1 });
    let text = '';
    const sink = new Writable({ write: (chunk, _e, done) => ((text += String(chunk)), done()) });
    printComparison(new Output(false, 0, sink, sink), { ...c, added: { total: 3, items: c.added.items } });
    expect(text).toContain('and 2 more (--limit)');
  });

  it('a base run of another project is not found', async () => {
    const other = await srv.createOtherTenant();
    const foreign = await srv.api('POST', '/runs', { auth: other.apiKey, body: { projectId: other.projectId, status: 'passed' } });
    await expect(compareRuns(keyContext(srv), { runId: run, baseId: foreign.body.id })).rejects.toMatchObject({ status: 404, code: 'NOT_FOUND' });
  });
});
