import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FullConfig, FullResult, Suite, TestCase, TestResult } from '@playwright/test/reporter';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '@testreport/server/testing';
import { TestReportReporter } from './reporter.js';

// The reporter's session loads in the background after onBegin: tests (and errors) that Playwright
// reports before it is loaded must reach the server all the same. Playwright's objects are
// reduced here to what the reporter reads; the real runs are in test/reporter.

let s: TestServer;
const dirs: string[] = [];
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(async () => {
  await s?.close();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const root = '/repo';
const config = { rootDir: root, version: '1.65.1', workers: 2, projects: [{ name: '', use: {} }], grep: /.*/, grepInvert: null, shard: null } as unknown as FullConfig;

function testCase(i: number, status: 'passed' | 'failed'): [TestCase, TestResult] {
  const result = { status, retry: 0, duration: 5, steps: [], attachments: [], stdout: [], stderr: [], error: status === 'failed' ? { message: `boom ${i}` } : undefined, errors: [] } as unknown as TestResult;
  const test = {
    title: `case ${i}`,
    titlePath: () => ['', '', 'a.spec.ts', 'area', `case ${i}`],
    location: { file: join(root, 'a.spec.ts'), line: i + 1, column: 1 },
    results: [result],
    expectedStatus: 'passed',
    retries: 0,
    tags: [],
    annotations: [],
    outcome: () => (status === 'passed' ? 'expected' : 'unexpected'),
  } as unknown as TestCase;
  return [test, result];
}

it('tests and errors reported before the session is loaded are delivered and counted in the finish', async () => {
  const outputDir = mkdtempSync(join(tmpdir(), 'testreport-spool-'));
  dirs.push(outputDir);
  const tests = Array.from({ length: 5 }, (_, i) => testCase(i, i === 3 ? 'failed' : 'passed'));
  const fileSuite = { type: 'file', title: 'a.spec.ts', location: { file: join(root, 'a.spec.ts'), line: 0, column: 0 }, suites: [], tests: tests.map(([t]) => t) };
  const project = { type: 'project', title: '', suites: [fileSuite], project: () => ({ name: '' }) };
  const suite = { suites: [project], allTests: () => tests.map(([t]) => t) } as unknown as Suite;

  const reporter = new TestReportReporter({ url: s.url, apiKey: s.apiKey, outputDir, quarantine: false, runTitle: 'early tests' });
  reporter.onBegin(config, suite);
  // All of it synchronously after onBegin: the session cannot have been imported yet.
  reporter.onError({ message: 'a global error' });
  for (const [test, result] of tests) reporter.onTestEnd(test, result);
  await reporter.onEnd({ status: 'failed', duration: 100, startTime: new Date() } as FullResult);

  const runs = (await s.api('GET', `/runs?projectId=${s.projectId}&limit=50`, { auth: s.apiKey })).body.data;
  expect(runs).toHaveLength(1);
  const run = runs[0];
  expect(run).toMatchObject({ status: 'failed', totalTests: 5, passedTests: 4, failedTests: 1 });
  const stored = (await s.api('GET', `/tests?projectId=${s.projectId}&runId=${run.id}&limit=50`, { auth: s.apiKey })).body.data;
  expect(stored.map((t: { title: string }) => t.title).sort()).toEqual(tests.map(([t]) => t.title).sort());
  expect(stored.find((t: { title: string }) => t.title === 'case 3')).toMatchObject({ status: 'failed' });
});

it('loads the session at the first test, not at onBegin, while Playwright starts its workers', async () => {
  const outputDir = mkdtempSync(join(tmpdir(), 'testreport-spool-'));
  dirs.push(outputDir);
  const tests = Array.from({ length: 2 }, (_, i) => testCase(i, 'passed'));
  const fileSuite = { type: 'file', title: 'a.spec.ts', location: { file: join(root, 'a.spec.ts'), line: 0, column: 0 }, suites: [], tests: tests.map(([t]) => t) };
  const suite = { suites: [{ type: 'project', title: '', suites: [fileSuite], project: () => ({ name: '' }) }], allTests: () => tests.map(([t]) => t) } as unknown as Suite;
  // Runs are listed newest first; each reporter here adds one.
  const runs = async () => (await s.api('GET', `/runs?projectId=${s.projectId}&limit=50`, { auth: s.apiKey })).body.data;
  const before = (await runs()).length;

  const reporter = new TestReportReporter({ url: s.url, apiKey: s.apiKey, outputDir, quarantine: false, runTitle: 'first test' });
  reporter.onBegin(config, suite);
  // Loaded at onBegin, the session had created the run well within this time.
  await new Promise((r) => setTimeout(r, 1_000));
  expect(await runs()).toHaveLength(before);
  reporter.onTestBegin(tests[0][0], tests[0][1]);
  for (const [test, result] of tests) reporter.onTestEnd(test, result);
  await reporter.onEnd({ status: 'passed', duration: 100, startTime: new Date() } as FullResult);
  expect(await runs()).toHaveLength(before + 1);
  expect((await runs())[0]).toMatchObject({ status: 'passed', totalTests: 2, passedTests: 2 });

  // No test at all (everything filtered out): onEnd alone still reports the run.
  const empty = new TestReportReporter({ url: s.url, apiKey: s.apiKey, outputDir, quarantine: false, runTitle: 'no tests' });
  empty.onBegin(config, { suites: [], allTests: () => [] } as unknown as Suite);
  await empty.onEnd({ status: 'passed', duration: 10, startTime: new Date() } as FullResult);
  expect(await runs()).toHaveLength(before + 2);
  expect((await runs())[0]).toMatchObject({ status: 'passed', totalTests: 0 });
});
