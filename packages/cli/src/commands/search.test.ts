import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRun, postTests, startTestServer, testBody, type TestServer } from '@testreport/server/testing';
import { buildProgram } from '../program.js';
import { Output } from '../lib/output.js';
import { keyContext } from '../testing/context.js';
import { printSearch, search } from './search.js';

let srv: TestServer;

const printed = (print: (out: Output) => void, colour: 0 | 1 = 0) => {
  let text = '';
  const sink = new Writable({ write: (chunk, _e, done) => ((text += String(chunk)), done()) });
  print(new Output(false, colour, sink, sink));
  return text;
};

beforeAll(async () => {
  srv = await startTestServer();
  const main = (await createRun(srv, { branch: 'main', commitSha: 'abcdef0123' })).id;
  await postTests(srv, [
    testBody(main, srv.projectId, { title: 'pays', fullTitle: 'cart > pays', status: 'failed', error: { message: 'Error: read ECONNRESET 10.1.1.1\n    at TCP.onStreamRead' } }),
    testBody(main, srv.projectId, { title: 'ships', fullTitle: 'cart > ships', stdout: 'retrying after econnreset' }),
  ]);
  const feature = (await createRun(srv, { branch: 'feature/x', commitSha: 'fedcba9876' })).id;
  await postTests(srv, [testBody(feature, srv.projectId, { title: 'pays', fullTitle: 'cart > pays', status: 'failed', error: { message: 'Error: read ECONNRESET 10.1.1.2' } })]);
});
afterAll(() => srv?.close());

describe('reporter search', () => {
  it('prints each result newest first with where it ran and its snippet on one line', async () => {
    const res = await search(keyContext(srv), { q: 'ECONNRESET' });
    expect(res.total).toBe(3);
    const lines = printed((out) => printSearch(out, res)).trimEnd().split('\n');
    expect(lines).toHaveLength(6);
    expect(lines[0]).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\dZ  feature\/x @ fedcba98  failed  cart > pays  \(test [\w-]+\)$/);
    expect(lines[1]).toBe('  errors: Error: read ECONNRESET 10.1.1.2');
    expect(lines[3]).toBe('  output: retrying after econnreset');
    expect(lines[5]).toBe('  errors: Error: read ECONNRESET 10.1.1.1 at TCP.onStreamRead');
    // In colour the match stands out.
    expect(printed((out) => printSearch(out, res), 1)).toContain('\u001b[1m\u001b[31mECONNRESET\u001b[39m\u001b[22m');
  });

  it('narrows by field and branch, and refuses an unknown field naming it', async () => {
    expect((await search(keyContext(srv), { q: 'econnreset', in: 'errors', branch: 'main' })).data.map((h) => h.fullTitle)).toEqual(['cart > pays']);
    expect((await search(keyContext(srv), { q: 'econnreset', in: 'output' })).data.map((h) => h.fullTitle)).toEqual(['cart > ships']);
    await expect(search(keyContext(srv), { q: 'econnreset', in: 'logs' })).rejects.toMatchObject({ status: 400, details: { field: 'in' } });
    expect(printed((out) => printSearch(out, { data: [], total: 0, limit: 50, offset: 0 }))).toBe('Nothing found.\n');
  });

  it('is a command taking the text and --in, --branch, --since and paging flags', () => {
    const cmd = buildProgram().commands.find((c) => c.name() === 'search')!;
    expect(cmd.registeredArguments.map((a) => a.name())).toEqual(['text']);
    expect(cmd.options.map((o) => o.long)).toEqual(expect.arrayContaining(['--in', '--branch', '--since', '--limit', '--offset']));
  });
});
