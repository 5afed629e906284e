import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli, useBuiltServer } from '../cli/helpers.js';
import { runDebugSuite } from './debugRun.js';

// Every try of a test (issue 24), through the live reporter and through `reporter upload` of the same
// run's JSON report: both go through the reporter's one mapping (packages/reporter/src/results), so the
// server must store the same tries, errors, locations, snippets and per-try artifacts.
const setup = useBuiltServer('attempts-');

async function runPlaywright(): Promise<{ dir: string }> {
  const dir = setup.dir();
  const run = await runDebugSuite(dir, { url: setup.server.url, apiKey: setup.server.apiKey });
  expect(run.code, run.output).toBe(1);
  return { dir };
}

type Stored = Record<string, { status: string; attempts: any[]; artifacts: Array<{ fileName: string; retry: number | null; type: string }> }>;

/** What the server holds for each test of a run: its tries (steps aside) and its artifacts with their retry. */
async function stored(runId: string): Promise<Stored> {
  const api = (path: string) => setup.server.api('GET', path, { auth: setup.server.apiKey }).then((r) => r.body);
  const list = (await api(`/tests?projectId=${setup.server.projectId}&runId=${runId}&limit=50`)).data as Array<{ id: string; title: string }>;
  const artifacts = (await api(`/artifacts?runId=${runId}`)).data as Array<{ testId: string; fileName: string; retry: number | null; type: string }>;
  const out: Stored = {};
  for (const t of list) {
    const full = await api(`/tests/${t.id}`);
    out[t.title] = {
      status: full.status,
      attempts: full.attempts,
      artifacts: artifacts.filter((a) => a.testId === t.id).map(({ fileName, retry, type }) => ({ fileName, retry, type })).sort((a, b) => a.fileName.localeCompare(b.fileName)),
    };
  }
  return out;
}

describe('attempts of a test: live reporter and reporter upload', () => {
  let live: Stored;
  let dir: string;

  it('the live reporter stores every try with all its errors, locations, snippets, output and text attachments', { timeout: 180_000 }, async () => {
    const run = await runPlaywright();
    dir = run.dir;
    const runId = (await setup.server.api('GET', `/runs?projectId=${setup.server.projectId}&limit=1`, { auth: setup.server.apiKey })).body.data[0].id;
    live = await stored(runId);

    const flaky = live['fails differently, then passes'];
    expect(flaky.status).toBe('flaky');
    expect(flaky.attempts.map((a) => [a.retry, a.status])).toEqual([[0, 'failed'], [1, 'failed'], [2, 'passed']]);
    expect(flaky.attempts[0].errors).toHaveLength(1);
    expect(flaky.attempts[0].errors[0].message).toMatch(/^Error: first try\n/);
    expect(flaky.attempts[0].errors[0].location).toEqual({ file: 'debug.spec.ts', line: 9, column: expect.any(Number) });
    expect(flaky.attempts[0].errors[0].snippet).toMatch(/^> {1,2}9 \|.*toBe\(1\)/m);
    expect(flaky.attempts[1].errors[0].message).toBe('Error: second try broke');
    expect(flaky.attempts[1].errors[0].location).toMatchObject({ file: 'debug.spec.ts', line: 10 });
    expect(flaky.attempts[1].errors[0].stack).toMatch(/\n {4}at .*debug\.spec\.ts:10:\d+/);
    expect(flaky.attempts.map((a) => a.stdout)).toEqual(['try 1 says hello\n', 'try 2 says hello\n', 'try 3 says hello\n']);
    expect(flaky.attempts[2].errors).toEqual([]);
    for (const a of [...flaky.attempts.flatMap((x) => x.errors.map((e: any) => e.message + e.snippet)), ...flaky.attempts.map((x) => x.stdout)]) expect(a).not.toContain('\u001b');

    const soft = live['soft assertions'];
    expect(soft.attempts).toHaveLength(1);
    expect(soft.attempts[0].errors.map((e: any) => [e.message.split('\n')[0], e.location.line])).toEqual([['Error: first soft', 15], ['Error: second soft', 16]]);
    expect(soft.attempts[0].attachments.map((a: any) => [a.name, a.contentType])).toEqual([['notes', 'text/plain'], ['error-context', 'text/markdown']]);
    expect(soft.attempts[0].attachments[0].body).toBe('order 42\nstatus: pending\n');

    const shot = live['screenshot mismatch'];
    expect(shot.artifacts).toEqual([
      { fileName: 'box-actual.png', retry: 0, type: 'screenshot' },
      { fileName: 'box-diff.png', retry: 0, type: 'screenshot' },
      { fileName: 'box-expected.png', retry: 0, type: 'screenshot' },
    ]);
    expect(shot.attempts[0].errors[0].message).toContain('toHaveScreenshot');
    // Playwright's page snapshot at the failure, kept inline.
    expect(shot.attempts[0].attachments.find((a: any) => a.name === 'error-context')?.body).toContain('heading "Cart"');

    const missing = live['missing baseline'];
    expect(missing.attempts[0].errors[0].message).toMatch(/A snapshot doesn't exist/);
    expect(missing.artifacts.map((a) => a.fileName)).toEqual(['never-committed-actual.png', 'never-committed-expected.png']);
  });

  it('`reporter upload` of the run\'s JSON report stores the same tries, errors, locations, snippets and per-try artifacts', { timeout: 180_000 }, async () => {
    const res = await cli(['upload', join(dir, 'report.json')], { TESTREPORT_URL: setup.server.url, TESTREPORT_API_KEY: setup.server.apiKey });
    expect(res.code, res.stderr).toBe(0);
    const uploaded = await stored(res.stdout.match(/to run (\S+)/)![1]);
    expect(Object.keys(uploaded).sort()).toEqual(Object.keys(live).sort());
    // The JSON report keeps only `test.step` steps (no actions, assertions, hooks), so step counts differ; nothing else may.
    const withoutSteps = (s: Stored) => Object.fromEntries(Object.entries(s).map(([k, v]) => [k, { ...v, attempts: v.attempts.map(({ stepCount: _s, ...a }) => a) }]));
    expect(withoutSteps(uploaded)).toEqual(withoutSteps(live));
  });
});
