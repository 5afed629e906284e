import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRun, postTests, startTestServer, testBody, type TestServer } from '@testreport/server/testing';
import { Output } from '../lib/output.js';
import { keyContext } from '../testing/context.js';
import { getError, listErrors, printError, printErrorList } from './errors.js';

let srv: TestServer;
let first: string;

const printed = (print: (out: Output) => void) => {
  let text = '';
  const sink = new Writable({ write: (chunk, _e, done) => ((text += String(chunk)), done()) });
  print(new Output(false, 0, sink, sink));
  return text;
};

beforeAll(async () => {
  srv = await startTestServer();
  first = (await createRun(srv, { branch: 'main', commitSha: 'abcdef0123' })).id;
  await postTests(srv, [testBody(first, srv.projectId, { title: 'pays', fullTitle: 'cart > pays', status: 'failed', error: { message: 'Error: read ECONNRESET 10.1.1.1' } })]);
  const second = (await createRun(srv, { branch: 'feature/x', commitSha: 'fedcba9876' })).id;
  await postTests(srv, [
    testBody(second, srv.projectId, { title: 'pays', fullTitle: 'cart > pays', status: 'failed', error: { message: 'Error: read ECONNRESET 10.1.1.2' } }),
    testBody(second, srv.projectId, { title: 'ships', fullTitle: 'cart > ships', status: 'failed', error: { message: 'Error: no carrier' } }),
  ]);
});
afterAll(() => srv?.close());

describe('reporter errors', () => {
  it('lists groups with their first-seen commit and filters by branch and text', async () => {
    const all = await listErrors(keyContext(srv));
    expect(all.total).toBe(2);
    const reset = all.data.find((g) => g.message.includes('ECONNRESET'))!;
    expect(reset).toMatchObject({ occurrences: 2, runs: 2, firstSeen: { commitSha: 'abcdef0123', branch: 'main' }, lastSeen: { branch: 'feature/x' } });
    const text = printed((out) => printErrorList(out, all));
    expect(text).toMatch(new RegExp(`${reset.fingerprint}\\s+2\\s+1\\s+2\\s+\\d{4}-\\d\\d-\\d\\d abcdef01\\s+\\d{4}-\\d\\d-\\d\\d\\s+Error: read ECONNRESET 10\\.1\\.1\\.2`));
    expect((await listErrors(keyContext(srv), { branch: 'main' })).total).toBe(1);
    expect((await listErrors(keyContext(srv), { q: 'carrier' })).data.map((g) => g.message)).toEqual(['Error: no carrier']);
  });

  it('shows one group with where it was first seen and the tests it hits', async () => {
    const fp = (await listErrors(keyContext(srv), { q: 'ECONNRESET' })).data[0].fingerprint;
    const g = await getError(keyContext(srv), { fingerprint: fp });
    expect(g.testCases).toEqual([expect.objectContaining({ fullTitle: 'cart > pays', occurrences: 2 })]);
    const text = printed((out) => printError(out, g));
    expect(text).toContain(`on main @ abcdef01 (run ${first})`);
    expect(text).toContain('2 in 2 runs, 1 tests');
    await expect(getError(keyContext(srv), { fingerprint: '0000000000000000' })).rejects.toMatchObject({ status: 404 });
  });
});
