import { spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startTestServer, type TestServer } from '@testreport/server/testing';
import { FIXTURE_COUNTS, FIXTURES_DIR, fixturesPresent } from './fixtureCounts.js';
import { assertBuilt, cli, ROOT, tempDir } from './helpers.js';

// Each check spawns the binary (about a second of start-up on a busy 2-core machine).
vi.setConfig({ testTimeout: 120_000 });

let srv: TestServer;
let env: Record<string, string>;

beforeAll(async () => {
  assertBuilt();
  srv = await startTestServer();
  env = { TESTREPORT_URL: srv.url, TESTREPORT_API_KEY: srv.apiKey, TESTREPORT_CONFIG_DIR: tempDir('cfg-') };
});
afterAll(async () => {
  await srv?.close();
});

async function storedCounts(runId: string) {
  const run = await srv.api('GET', `/runs/${runId}`, { auth: srv.apiKey });
  expect(run.status).toBe(200);
  const tests = await srv.api('GET', `/tests?projectId=${srv.projectId}&runId=${runId}&limit=1`, { auth: srv.apiKey });
  expect(tests.status).toBe(200);
  return {
    run: { total: run.body.totalTests, passed: run.body.passedTests, failed: run.body.failedTests, skipped: run.body.skippedTests, flaky: run.body.flakyTests },
    storedTests: tests.body.total as number,
    status: run.body.status as string,
  };
}

async function runCount(): Promise<number> {
  return (await srv.api('GET', `/runs?projectId=${srv.projectId}&limit=1`, { auth: srv.apiKey })).body.total;
}

describe('reporter upload: the shared real-world reports', () => {
  it('finds the real-world reports in the repository (test/fixtures/reports)', () => {
    expect(fixturesPresent, `expected the real-world reports at ${FIXTURES_DIR}`).toBe(true);
  });

  for (const [name, want] of Object.entries(FIXTURE_COUNTS)) {
    it(`stores exactly the tests of ${name}`, async () => {
      const res = await cli(['upload', join(FIXTURES_DIR, name), '--json'], env);
      expect(res.stderr).not.toMatch(/error:/);
      expect(res.code).toBe(0);
      const stored = await storedCounts(res.json.runId);
      expect(stored.run).toEqual(want);
      expect(stored.storedTests).toBe(want.total);
      expect(stored.status).toBe(want.failed > 0 ? 'failed' : 'passed');
    }, 120_000);
  }

  it('re-uploading the same report creates no duplicates', async () => {
    const file = join(FIXTURES_DIR, 'junit/java-testng-pulsar-merged.xml');
    const first = await cli(['upload', file, '--json'], env);
    expect(first.code).toBe(0);
    const runsBefore = await runCount();
    const again = await cli(['upload', file, '--json'], env);
    expect(again.code).toBe(0);
    expect(again.json.runId).toBe(first.json.runId);
    expect(await runCount()).toBe(runsBefore);
    expect((await storedCounts(first.json.runId)).storedTests).toBe(808);
    const suites = await srv.api('GET', `/test-suites?runId=${first.json.runId}&projectId=${srv.projectId}`, { auth: srv.apiKey });
    const titles = (suites.body.data as Array<{ title: string }>).map((s) => s.title);
    expect(new Set(titles).size).toBe(titles.length);
  }, 120_000);

  it('uploads a folder of JUnit files as one run and keeps suite nesting', async () => {
    const dir = tempDir('junit-');
    mkdirSync(join(dir, 'nested'));
    copyFileSync(join(FIXTURES_DIR, 'junit/phpunit-nested-phpcheckstyle.xml'), join(dir, 'a.xml'));
    copyFileSync(join(FIXTURES_DIR, 'junit/go-junit-report-pass-fail-skip.xml'), join(dir, 'nested/b.xml'));
    const res = await cli(['upload', dir, '--json', '--run-title', 'merged', '--tags', 'nightly,php', '--branch', 'feature/x', '--commit', 'abc1234'], env);
    expect(res.code).toBe(0);
    const stored = await storedCounts(res.json.runId);
    expect(stored.run.total).toBe(35);
    expect(stored.run.failed).toBe(3);
    const run = (await srv.api('GET', `/runs/${res.json.runId}`, { auth: srv.apiKey })).body;
    expect(run).toMatchObject({ runTitle: 'merged', tags: ['nightly', 'php'], branch: 'feature/x', commitSha: 'abc1234' });
    const tree = (await srv.api('GET', `/test-suites?runId=${res.json.runId}&projectId=${srv.projectId}`, { auth: srv.apiKey })).body.data;
    const depth = (nodes: any[]): number => (nodes.length ? 1 + Math.max(...nodes.map((n) => depth(n.children))) : 0);
    expect(depth(tree)).toBe(3);
    rmSync(dir, { recursive: true, force: true });
  }, 60_000);

  it('a malformed report exits 2 with a one-line reason and creates nothing', async () => {
    const dir = tempDir('bad-');
    const before = await runCount();
    writeFileSync(join(dir, 'report.json'), '{"config":{},"suites":[{"title":"a.spec.ts","specs":[');
    const json = await cli(['upload', join(dir, 'report.json')], env);
    expect(json.code).toBe(2);
    expect(json.stderr.trim().split('\n')).toHaveLength(1);
    expect(json.stderr).toMatch(/^error: .*report\.json: not valid JSON/);
    writeFileSync(join(dir, 'results.xml'), '<testsuite name="x"><testcase name="a"><failure>boom</testsuite>');
    const xml = await cli(['upload', join(dir, 'results.xml'), '--json'], env);
    expect(xml.code).toBe(2);
    expect(xml.json.error.code).toBe('MALFORMED_REPORT');
    writeFileSync(join(dir, 'notes.txt'), 'hello');
    expect((await cli(['upload', join(dir, 'notes.txt')], env)).code).toBe(2);
    expect((await cli(['upload', join(dir, 'missing-folder')], env)).code).toBe(2);
    expect(await runCount()).toBe(before);
    rmSync(dir, { recursive: true, force: true });
  });

  it('--dry-run shows what would be sent and creates nothing', async () => {
    const before = await runCount();
    const res = await cli(['upload', join(FIXTURES_DIR, 'junit/dotnet-junitlogger-nunit.xml'), '--dry-run', '--json'], env);
    expect(res.code).toBe(0);
    expect(res.json).toMatchObject({ dryRun: true, kind: 'junit', run: { totalTests: 52, failedTests: 14, skippedTests: 6, status: 'failed' } });
    const human = await cli(['upload', join(FIXTURES_DIR, 'playwright-json/pw-1.37-retries-flaky.json'), '--dry-run'], env);
    expect(human.code).toBe(0);
    expect(human.stdout).toMatch(/Dry run \(nothing was sent\)/);
    expect(human.stdout).toMatch(/14 \(10 passed, 2 failed, 1 flaky, 1 skipped\)/);
    expect(human.stderr).toMatch(/would not be uploaded \(file not found\): \/project\/tests\/results\/.*trace\.zip/);
    expect(await runCount()).toBe(before);
  });

  it('refuses a bad key before sending anything (exit 2)', async () => {
    const res = await cli(['upload', join(FIXTURES_DIR, 'junit/cargo-nextest-basic.xml')], { ...env, TESTREPORT_API_KEY: 'your-api-key' });
    expect(res.code).toBe(2);
    expect(res.stderr).toMatch(/^error: invalid API key: .*placeholder/);
    const none = await cli(['upload', join(FIXTURES_DIR, 'junit/cargo-nextest-basic.xml')], { ...env, TESTREPORT_API_KEY: undefined });
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/no credentials/);
  });
});

describe('reporter upload: a report from a real Playwright run', () => {
  let dir: string;
  let report: any;

  beforeAll(async () => {
    dir = tempDir('pw-');
    const child = spawn(process.execPath, [join(ROOT, 'node_modules/@playwright/test/cli.js'), 'test', '-c', join(ROOT, 'test/cli/fixtures/pw/playwright.config.ts')], {
      cwd: join(ROOT, 'test/cli/fixtures/pw'),
      env: {
        ...process.env,
        CLI_PW_OUTPUT: join(dir, 'test-results'),
        CLI_PW_JSON: join(dir, 'report.json'),
        FORCE_COLOR: '1',
        // The live reporter runs against a server that is down, so it writes a spool to replay later.
        CLI_PW_REPORTER: join(ROOT, 'packages/reporter/dist/index.js'),
        TESTREPORT_URL: 'http://127.0.0.1:9',
        TESTREPORT_API_KEY: srv.apiKey,
        TESTREPORT_OUTPUT_DIR: join(dir, 'spool'),
        TESTREPORT_RETRY_BUDGET_MS: '1000',
      },
    });
    child.stdout.resume();
    child.stderr.resume();
    await new Promise((res) => child.on('close', res));
    report = JSON.parse(readFileSync(join(dir, 'report.json'), 'utf8'));
  }, 180_000);

  it('stores retries, steps, errors, output and attachments; a removed attachment is a warning, not a failure', async () => {
    // One attachment disappears between the run and the upload (CI caches, artifact retention…).
    const gone = JSON.stringify(report).match(/"path":"([^"]*gone-[^"]*\.png)"/)![1];
    rmSync(gone);

    const res = await cli(['upload', join(dir, 'report.json')], env);
    expect(res.code).toBe(0);
    expect(res.stdout).toMatch(/Uploaded \d+ tests to run \S+ \(failed\)/);
    expect(res.stderr).toContain(`attachment not uploaded (file not found): ${gone}`);
    const runId = res.stdout.match(/to run (\S+)/)![1];
    // The summary links to the run's dashboard page, not to the API.
    expect(res.stdout).toContain(`run: ${srv.url}/runs/${runId}`);

    const stored = await storedCounts(runId);
    expect(stored.run).toEqual({ total: 6, passed: 3, failed: 1, flaky: 1, skipped: 1 });

    const list = (await srv.api('GET', `/tests?projectId=${srv.projectId}&runId=${runId}&limit=50`, { auth: srv.apiKey })).body.data as any[];
    const byTitle = (t: string) => list.find((x) => x.title === t);
    const flaky = (await srv.api('GET', `/tests/${byTitle('retries until it passes').id}`, { auth: srv.apiKey })).body;
    expect(flaky).toMatchObject({ status: 'flaky', isFlaky: true, retries: 1, fullTitle: 'cart > retries until it passes', filePath: 'results.spec.ts' });

    const failed = (await srv.api('GET', `/tests/${byTitle('computes the total').id}`, { auth: srv.apiKey })).body;
    expect(failed.status).toBe('failed');
    expect(failed.error.message).toContain('total');
    expect(failed.error.message).not.toMatch(/\u001b\[/);

    const passed = (await srv.api('GET', `/tests/${byTitle('adds an item').id}`, { auth: srv.apiKey })).body;
    expect(passed.stdout).toContain('cart has 1 item');
    const steps = (await srv.api('GET', `/tests/${passed.id}/steps`, { auth: srv.apiKey })).body.data;
    expect(steps[0]).toMatchObject({ title: 'open cart', steps: [{ title: 'load items' }] });

    const artifacts = (await srv.api('GET', `/artifacts?runId=${runId}`, { auth: srv.apiKey })).body.data as any[];
    const shots = artifacts.filter((a) => a.type === 'screenshot');
    // Both attempts of the flaky test attached a screenshot, plus chromium's own screenshot of browser.spec.ts.
    expect(shots.length).toBe(3);
    expect(shots.every((a) => a.mimeType === 'image/png' && a.testId)).toBe(true);
    expect(artifacts.find((a) => a.fileName.startsWith('gone'))).toBeUndefined();

    const suites = (await srv.api('GET', `/test-suites?runId=${runId}&projectId=${srv.projectId}`, { auth: srv.apiKey })).body.data as any[];
    const results = suites.find((s) => s.title === 'results.spec.ts');
    expect(results.children.map((c: any) => c.title)).toEqual(['cart']);

    // The same report again: same run, same tests, same artifacts.
    const again = await cli(['upload', join(dir, 'report.json'), '--json'], env);
    expect(again.code).toBe(0);
    expect(again.json.runId).toBe(runId);
    expect((await storedCounts(runId)).storedTests).toBe(stored.storedTests);
    expect((await srv.api('GET', `/artifacts?runId=${runId}`, { auth: srv.apiKey })).body.data).toHaveLength(artifacts.length);
  }, 120_000);

  it('replays the spool the live reporter wrote while the server was down', async () => {
    const spool = join(dir, 'spool');
    expect(existsSync(spool)).toBe(true);
    const before = await runCount();
    const res = await cli(['upload', spool, '--json'], env);
    expect(res.code, res.stderr).toBe(0);
    const runId = res.json.results[0].runId;
    expect(await runCount()).toBe(before + 1);
    const stored = await storedCounts(runId);
    expect(stored.run).toMatchObject({ failed: 1, flaky: 1, skipped: 1 });
    // Replaying again sends nothing new.
    const again = await cli(['upload', spool], env);
    expect(again.code, again.stderr).toBe(0);
    expect(await runCount()).toBe(before + 1);
    expect((await storedCounts(runId)).storedTests).toBe(stored.storedTests);
  });
});
