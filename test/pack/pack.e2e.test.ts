import { spawn } from 'node:child_process';
import { cpSync, existsSync, lstatSync, mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '@testreport/server/testing';
import { chromiumPath } from '../setup/chromium.mjs';

// The README's "Use it from your own Playwright project", end to end: `npm run pack:tarballs` (the
// part of `npm run pack` after the build `npm test` already did), the tarballs installed into a
// CommonJS project outside the workspace, `playwright test` there with the reporter, then
// `npx reporter upload` there, and what the server holds afterwards.

const ROOT = resolve(fileURLToPath(new URL('../..', import.meta.url)));
const PACKS = join(ROOT, 'packs');
const PACKAGES = ['contract', 'client', 'reporter', 'cli'];
const PLAYWRIGHT_VERSION: string = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).devDependencies['@playwright/test'];

interface Result {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * A child process with the developer's environment minus what would make it behave unlike a fresh
 * CI job: the outer `npm test`'s npm_* settings (npm would treat the workspace as the project),
 * TESTREPORT_* and CI markers.
 */
function run(cmd: string, args: string[], cwd: string, env: Record<string, string> = {}): Promise<Result> {
  const childEnv: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (!/^(npm_|INIT_CWD$|TESTREPORT_|CI$|GITHUB_ACTIONS$|GITLAB_CI$)/i.test(k)) childEnv[k] = v;
  }
  const child = spawn(cmd, args, { cwd, env: { ...childEnv, FORCE_COLOR: '0', NO_COLOR: '1', ...env } });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  return new Promise((res, rej) => {
    child.once('error', rej);
    child.once('close', (code) => res({ code: code ?? -1, stdout, stderr }));
  });
}
const failed = (what: string, r: Result) => `${what} exited ${r.code}\n${r.stdout}\n${r.stderr}`;

const TITLES = {
  'adds up the cart': 'passed',
  'attaches a screenshot of the checkout page': 'passed',
  'computes the tax': 'failed',
  'retries until the stock service answers': 'flaky',
  'prints a receipt': 'skipped',
};
const COUNTS = { total: 5, passed: 2, failed: 1, flaky: 1, skipped: 1 };

describe('the packed packages in a project outside the workspace', () => {
  let srv: TestServer;
  let project: string;
  let tarballs: string[];
  let playwright: Result;
  let upload: Result;
  let liveRunId: string;
  let uploadRunId: string;

  beforeAll(async () => {
    srv = await startTestServer();

    const pack = await run('npm', ['run', 'pack:tarballs'], ROOT);
    expect(pack.code, failed('npm run pack:tarballs', pack)).toBe(0);
    tarballs = PACKAGES.map((p) => join(PACKS, `testreport-${p}-0.1.0.tgz`));

    project = mkdtempSync(join(tmpdir(), 'testreport-outside-'));
    cpSync(join(ROOT, 'test/pack/project'), project, { recursive: true });
    // --prefer-offline: @playwright/test comes from the npm cache the workspace install filled.
    const install = await run('npm', ['install', '-D', '--prefer-offline', '--no-audit', '--no-fund', `@playwright/test@${PLAYWRIGHT_VERSION}`, ...tarballs], project);
    expect(install.code, failed('npm install', install)).toBe(0);

    const env = { TESTREPORT_URL: srv.url, TESTREPORT_API_KEY: srv.apiKey, TESTREPORT_CONFIG_DIR: join(project, '.testreport-config'), CHROMIUM_PATH: chromiumPath() };
    playwright = await run('npx', ['--no', 'playwright', 'test'], project, env);
    // --no: if our bin were not installed, fail instead of fetching an unrelated `reporter` from the registry.
    upload = await run('npx', ['--no', 'reporter', 'upload', 'report.json'], project, env);

    uploadRunId = upload.stdout.match(/to run (\S+)/)?.[1] ?? '';
    const runs = (await srv.api('GET', `/runs?projectId=${srv.projectId}&limit=10`, { auth: srv.apiKey })).body.data as Array<{ id: string }>;
    liveRunId = runs.find((r) => r.id !== uploadRunId)?.id ?? '';
  }, 300_000);

  afterAll(async () => {
    await srv?.close();
    if (project) rmSync(project, { recursive: true, force: true });
  });

  it('npm run pack writes one tarball per package; they install as real packages into a CommonJS project outside the workspace', () => {
    for (const t of tarballs) expect(existsSync(t), t).toBe(true);
    expect(relative(ROOT, project).startsWith('..')).toBe(true);
    expect(JSON.parse(readFileSync(join(project, 'package.json'), 'utf8')).type).toBeUndefined();
    for (const p of PACKAGES) {
      const dir = join(project, 'node_modules/@testreport', p);
      expect(lstatSync(dir).isSymbolicLink(), `${p} is a copy, not a link into the workspace`).toBe(false);
      expect(JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')).version).toBe('0.1.0');
    }
    expect(realpathSync(join(project, 'node_modules/.bin/reporter'))).toBe(join(realpathSync(project), 'node_modules/@testreport/cli/bin/reporter.js'));
  });

  it('playwright test with @testreport/reporter in a TypeScript config stores the run, its tests and counts', async () => {
    expect(playwright.code, 'one test fails on purpose').toBe(1);
    expect(playwright.stderr + playwright.stdout).not.toMatch(/Error: Cannot find module|ERR_REQUIRE_ESM|failed to load reporter/i);
    expect(liveRunId).not.toBe('');
    const run = (await srv.api('GET', `/runs/${liveRunId}`, { auth: srv.apiKey })).body;
    expect(run).toMatchObject({ runTitle: 'outside project', status: 'failed' });
    expect({ total: run.totalTests, passed: run.passedTests, failed: run.failedTests, flaky: run.flakyTests, skipped: run.skippedTests }).toEqual(COUNTS);
    expect(await storedTests(liveRunId)).toEqual(TITLES);
  });

  it('npx reporter upload runs our CLI there and stores the JSON report as a run with the same tests', async () => {
    expect(upload.code, failed('npx reporter upload', upload)).toBe(0);
    expect(upload.stdout).toMatch(/Uploaded 5 tests to run \S+ \(failed\)/);
    const run = (await srv.api('GET', `/runs/${uploadRunId}`, { auth: srv.apiKey })).body;
    expect({ total: run.totalTests, passed: run.passedTests, failed: run.failedTests, flaky: run.flakyTests, skipped: run.skippedTests }).toEqual(COUNTS);
    expect(await storedTests(uploadRunId)).toEqual(TITLES);
    const runs = (await srv.api('GET', `/runs?projectId=${srv.projectId}&limit=10`, { auth: srv.apiKey })).body;
    expect(runs.total).toBe(2);
  });

  it('the reporter uploads the in-memory screenshot (testInfo.attach with a body) as a PNG artifact of its test', async () => {
    await expectBodyScreenshot(liveRunId);
  });

  it('reporter upload stores the in-memory screenshot the JSON report carries', async () => {
    await expectBodyScreenshot(uploadRunId);
  });

  async function storedTests(runId: string): Promise<Record<string, string>> {
    const list = (await srv.api('GET', `/tests?projectId=${srv.projectId}&runId=${runId}&limit=50`, { auth: srv.apiKey })).body.data as Array<{ title: string; status: string }>;
    return Object.fromEntries(list.map((t) => [t.title, t.status]));
  }

  async function expectBodyScreenshot(runId: string): Promise<void> {
    const tests = (await srv.api('GET', `/tests?projectId=${srv.projectId}&runId=${runId}&limit=50`, { auth: srv.apiKey })).body.data as Array<{ id: string; title: string }>;
    const shotTest = tests.find((t) => t.title === 'attaches a screenshot of the checkout page')!;
    const artifacts = (await srv.api('GET', `/artifacts?runId=${runId}&testId=${shotTest.id}`, { auth: srv.apiKey })).body.data as Array<{ type: string; mimeType: string; url: string }>;
    const shots = artifacts.filter((a) => a.type === 'screenshot');
    expect(shots).toHaveLength(1);
    expect(shots[0].mimeType).toBe('image/png');
    const res = await fetch(new URL(shots[0].url, srv.url));
    expect(res.status).toBe(200);
    const bytes = Buffer.from(await res.arrayBuffer());
    expect(bytes.subarray(0, 8).toString('hex'), 'PNG signature').toBe('89504e470d0a1a0a');
  }
});
