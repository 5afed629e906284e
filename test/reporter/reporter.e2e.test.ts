import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestReportClient } from '@testreport/client';
import { startTestServer, type TestServer } from '@testreport/server/testing';
import { replaySpool } from '../../packages/reporter/src/index.js';

const root = resolve(fileURLToPath(new URL('../..', import.meta.url)));
const fixtures = join(root, 'test/reporter/fixtures');
const reporterEntry = join(root, 'packages/reporter/dist/index.js');
const playwrightCli = join(root, 'node_modules/@playwright/test/cli.js');
const stripAnsi = (s: string) => s.replace(/\u001b\[[0-9;?]*[ -/]*[@-~]/g, '');

interface PwRun {
  code: number;
  stderr: string;
  json: any;
  spoolDir: string;
}

const tmpDirs: string[] = [];
/** `playwright test` in a child process, as a user's CI runs it; our reporter only when `reporter` is set. */
async function playwright(config: string, env: Record<string, string | undefined>, reporter = true): Promise<PwRun> {
  const dir = mkdtempSync(join(tmpdir(), 'testreport-pw-'));
  tmpDirs.push(dir);
  const spoolDir = join(dir, 'spool');
  const childEnv: NodeJS.ProcessEnv = {
    ...process.env,
    TR_JSON_OUT: join(dir, 'report.json'),
    TR_SPOOL_DIR: spoolDir,
    TR_PW_OUTPUT: join(dir, 'test-results'),
    TR_REPORTER: reporter ? reporterEntry : '',
    FORCE_COLOR: '0',
    ...env,
  };
  // The vitest worker's own CI markers must not leak into the run's CI metadata.
  delete childEnv.GITHUB_ACTIONS;
  const child = spawn(process.execPath, [playwrightCli, 'test', '-c', join(fixtures, config)], { cwd: fixtures, env: childEnv });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  child.stdout.resume();
  const code = await new Promise<number>((res) => child.on('close', (c) => res(c ?? -1)));
  const json = JSON.parse(readFileSync(join(dir, 'report.json'), 'utf8'));
  return { code, stderr, json, spoolDir };
}

interface Expected {
  fullTitle: string;
  filePath: string;
  status: string;
  duration: number;
  retries: number;
  errorMessage: string | undefined;
  steps: StepTitles[];
}
interface StepTitles {
  title: string;
  steps: StepTitles[];
}

const OUTCOME: Record<string, string> = { expected: 'passed', unexpected: 'failed', flaky: 'flaky', skipped: 'skipped' };

/** What Playwright's own JSON reporter says about every test, in the server's terms. */
function expectedFromJson(json: any): Expected[] {
  const multiProject = json.config.projects.length > 1;
  const out: Expected[] = [];
  const stepsOf = (steps: any[] | undefined): StepTitles[] => (steps ?? []).map((s) => ({ title: s.title, steps: stepsOf(s.steps) }));
  const walk = (suite: any, path: string[], file: string) => {
    for (const spec of suite.specs ?? []) {
      for (const t of spec.tests) {
        const last = t.results[t.results.length - 1];
        const failure = [...t.results].reverse().find((r: any) => r.error);
        const status = OUTCOME[t.status];
        out.push({
          fullTitle: [...(multiProject ? [t.projectName] : []), ...path, spec.title].join(' > '),
          filePath: file,
          status,
          duration: last?.duration ?? 0,
          retries: last?.retry ?? 0,
          errorMessage: status === 'failed' || status === 'flaky' ? stripAnsi(failure.error.message) : undefined,
          steps: stepsOf(last?.steps),
        });
      }
    }
    for (const child of suite.suites ?? []) walk(child, [...path, child.title], file);
  };
  for (const fileSuite of json.suites) walk(fileSuite, [], fileSuite.file);
  return out;
}

/** The server's steps reduced to the test.step actions the JSON report keeps. */
function pruneSteps(steps: any[], keep: Set<string>): StepTitles[] {
  return steps
    .filter((s) => s.category === 'action' && keep.has(s.title))
    .map((s) => ({ title: s.title, steps: pruneSteps(s.steps ?? [], keep) }));
}
const titlesOf = (steps: StepTitles[], into = new Set<string>()) => {
  for (const s of steps) {
    into.add(s.title);
    titlesOf(s.steps, into);
  }
  return into;
};
const categoriesOf = (steps: any[], into = new Set<string>()): Set<string> => {
  for (const s of steps) {
    into.add(s.category);
    categoriesOf(s.steps ?? [], into);
  }
  return into;
};

function spoolFile(dir: string): string {
  const files = existsSync(dir) ? readdirSync(dir).filter((f) => f.endsWith('.ndjson')) : [];
  expect(files, `one spool file in ${dir}`).toHaveLength(1);
  return join(dir, files[0]);
}

/** A port nothing listens on: bound, read, closed. */
async function closedPort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const { port } = srv.address() as AddressInfo;
  await new Promise<void>((r) => srv.close(() => r()));
  return port;
}

async function fakeServer(handler: Parameters<typeof createServer>[1]): Promise<{ url: string; close(): Promise<void> }> {
  const srv: Server = createServer(handler);
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(srv.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((r) => {
        srv.closeAllConnections();
        srv.close(() => r());
      }),
  };
}

let s: TestServer;
let baselineMini: PwRun;

beforeAll(async () => {
  // The fixture configs load the built reporter, as users do; a stale build would test old code.
  const built = existsSync(reporterEntry) ? statSync(reporterEntry).mtimeMs : 0;
  const srcDir = join(root, 'packages/reporter/src');
  const newest = Math.max(...readdirSync(srcDir).map((f) => statSync(join(srcDir, f)).mtimeMs));
  if (built < newest) throw new Error('packages/reporter/dist is older than its sources: run `flock /tmp/testreport-build.lock npm run build` first');
  s = await startTestServer();
  baselineMini = await playwright('mini.config.ts', {}, false);
});

afterAll(async () => {
  await s?.close();
  for (const d of tmpDirs) rmSync(d, { recursive: true, force: true });
});

const reporterEnv = (extra: Record<string, string> = {}) => ({ TESTREPORT_URL: s.url, TESTREPORT_API_KEY: s.apiKey, ...extra });

async function runsOf(projectId = s.projectId): Promise<any[]> {
  return (await s.api('GET', `/runs?projectId=${projectId}&limit=500`, { auth: s.apiKey })).body.data;
}
async function testsOf(runId: string): Promise<any[]> {
  const res = await s.api('GET', `/tests?projectId=${s.projectId}&runId=${runId}&limit=500`, { auth: s.apiKey });
  expect(res.status).toBe(200);
  return res.body.data;
}

describe('reporter against a real server', () => {
  it('stores what Playwright reported: run metadata, suites, every test with steps, and failure artifacts', { timeout: 120_000 }, async () => {
    const before = (await runsOf()).length;
    const pw = await playwright('playwright.config.ts', reporterEnv());
    expect(pw.code).toBe(1);
    const runs = await runsOf();
    expect(runs).toHaveLength(before + 1);
    const runId = runs[0].id;
    expect(pw.stderr).toContain(`${s.url}/runs/${runId}`);
    expect(pw.stderr.split('\n').filter((l) => l.startsWith('[testreport]')).length).toBeLessThanOrEqual(3);

    const expected = expectedFromJson(pw.json);
    const run = (await s.api('GET', `/runs/${runId}`, { auth: s.apiKey })).body;
    const count = (st: string) => expected.filter((e) => e.status === st).length;
    expect(run).toMatchObject({
      status: 'failed',
      frameworkVersion: pw.json.config.version,
      workers: 2,
      browser: 'chromium',
      viewport: '800x600',
      runTitle: 'fixture run',
      tags: ['e2e', 'reporter'],
      totalTests: expected.length,
      passedTests: count('passed'),
      failedTests: count('failed'),
      skippedTests: count('skipped'),
      flakyTests: count('flaky'),
    });
    expect(run.hostname).toBeTruthy();
    expect(run.os).toBeTruthy();
    expect(run.duration).toBeGreaterThan(0);
    // Asked of git in the background at onBegin: the run still carries the checkout's commit.
    expect(run.commitSha).toBe(execFileSync('git', ['rev-parse', 'HEAD'], { cwd: fixtures, encoding: 'utf8' }).trim());

    const stored = await testsOf(runId);
    expect(stored).toHaveLength(expected.length);
    expect(new Set(stored.map((t) => t.fullTitle)).size).toBe(expected.length);
    for (const e of expected) {
      const listed = stored.find((t) => t.fullTitle === e.fullTitle);
      expect(listed, e.fullTitle).toBeDefined();
      const full = (await s.api('GET', `/tests/${listed.id}`, { auth: s.apiKey })).body;
      expect({ fullTitle: full.fullTitle, filePath: full.filePath, status: full.status, duration: full.duration, retries: full.retries }).toEqual({
        fullTitle: e.fullTitle, filePath: e.filePath, status: e.status, duration: e.duration, retries: e.retries,
      });
      expect(full.error?.message).toBe(e.errorMessage);
      const steps = (await s.api('GET', `/tests/${listed.id}/steps`, { auth: s.apiKey })).body.data;
      expect(pruneSteps(steps, titlesOf(e.steps)), `steps of ${e.fullTitle}`).toEqual(e.steps);
    }

    const byTitle = async (fullTitle: string) => {
      const t = stored.find((x) => x.fullTitle === fullTitle);
      const full = (await s.api('GET', `/tests/${t.id}`, { auth: s.apiKey })).body;
      const steps = (await s.api('GET', `/tests/${t.id}/steps`, { auth: s.apiKey })).body.data;
      return { full, steps };
    };
    const diff = await byTitle('alpha > fails with a diff');
    expect(diff.full).toMatchObject({
      status: 'failed', retries: 1, attempt: 2, tags: ['@critical'],
      annotations: [{ type: 'issue', description: 'TR-1' }],
      error: { expected: '"expected value"', actual: '"actual value"' },
    });
    expect(diff.full.error.stack).not.toMatch(/\u001b\[/);
    expect([...categoriesOf(diff.steps)]).toEqual(expect.arrayContaining(['action', 'assertion', 'hook']));
    const passes = await byTitle('beta > passes');
    expect(passes.full.stdout).toContain('out from passes');
    expect(passes.full.stderr).toContain('err from passes');
    expect(categoriesOf(passes.steps)).toContain('fixture');
    const flaky = await byTitle('alpha > is flaky');
    expect(flaky.full).toMatchObject({ status: 'flaky', isFlaky: true, attempt: 2 });
    expect(flaky.full.error.message).toContain('fails on the first attempt');
    expect(flaky.full.stdout).toMatch(/attempt 1 ---\nattempt 0[\s\S]*attempt 2 ---\nattempt 1/);
    expect((await byTitle('alpha > is fixme')).full.status).toBe('skipped');
    expect((await byTitle('alpha > outer block > inner block > nested passes')).full.tags).toEqual(['@slow', '@nested']);

    const tree = (await s.api('GET', `/test-suites?runId=${runId}&projectId=${s.projectId}`, { auth: s.apiKey })).body.data;
    const basic = tree.find((n: any) => n.title === 'basic.spec.ts');
    expect(basic.children.find((c: any) => c.title === 'outer block').children.map((c: any) => c.title)).toEqual(['inner block']);
    expect(tree.map((n: any) => n.title).sort()).toEqual(['basic.spec.ts', 'browser.spec.ts']);

    const artifacts = (await s.api('GET', `/artifacts?runId=${runId}`, { auth: s.apiKey })).body.data;
    const browserFailure = stored.find((t) => t.fullTitle === 'alpha > page > finds a missing button');
    const types = artifacts.filter((a: any) => a.testId === browserFailure.id).map((a: any) => a.type);
    expect(types).toContain('screenshot');
    expect(types).toContain('trace');
    const passing = new Set(stored.filter((t) => t.status === 'passed').map((t) => t.id));
    expect(artifacts.filter((a: any) => passing.has(a.testId))).toEqual([]);
    expect(existsSync(pw.spoolDir) && readdirSync(pw.spoolDir).length).toBeFalsy();
  });

  it('leaves the exit code alone and stores nothing when the key is a placeholder or belongs to another project', { timeout: 60_000 }, async () => {
    const before = (await runsOf()).length;
    const placeholder = await playwright('mini.config.ts', reporterEnv({ TESTREPORT_API_KEY: 'your-api-key' }));
    expect(placeholder.code).toBe(baselineMini.code);
    expect(placeholder.stderr).toMatch(/\[testreport\] reporting disabled: .*placeholder/);
    const other = await s.createOtherTenant();
    const wrong = await playwright('mini.config.ts', reporterEnv({ TESTREPORT_PROJECT_ID: other.projectId }));
    expect(wrong.code).toBe(baselineMini.code);
    expect(wrong.stderr).toMatch(/\[testreport\] reporting disabled: .*project/);
    expect((await runsOf()).length).toBe(before);
    expect(existsSync(wrong.spoolDir) && readdirSync(wrong.spoolDir).length).toBeFalsy();
  });
});

describe('reporter when the server cannot take the results', () => {
  const scenarios: { name: string; start(): Promise<{ url: string; close(): Promise<void> }>; env?: Record<string, string> }[] = [
    {
      name: 'server down (closed port)',
      start: async () => ({ url: `http://127.0.0.1:${await closedPort()}`, close: async () => {} }),
    },
    {
      name: 'server answering 500',
      start: () =>
        fakeServer((_req, res) => {
          res.writeHead(500, { 'content-type': 'application/json' });
          res.end('{"error":{"code":"INTERNAL_ERROR","message":"boom"}}');
        }),
    },
    {
      name: 'server slower than the timeout',
      start: () => fakeServer(() => {
        /* never answers */
      }),
      env: { TESTREPORT_TIMEOUT_MS: '300', TESTREPORT_RETRY_BUDGET_MS: '1500' },
    },
  ];

  for (const sc of scenarios) {
    it(`${sc.name}: same exit code, a spool, and a replay that fills the server once`, { timeout: 90_000 }, async () => {
      const bad = await sc.start();
      let pw: PwRun;
      try {
        pw = await playwright('mini.config.ts', reporterEnv({ TESTREPORT_URL: bad.url, ...sc.env }));
      } finally {
        await bad.close();
      }
      expect(pw.code).toBe(baselineMini.code);
      expect(pw.stderr).toMatch(/spooled to/);
      const file = spoolFile(pw.spoolDir);
      const expected = expectedFromJson(pw.json);

      const client = new TestReportClient({ apiKey: s.apiKey, url: s.url });
      const runsBefore = (await runsOf()).length;
      const first = await replaySpool(file, client);
      expect(first.sent.tests).toBe(expected.length);
      expect(first.sent.run).toBe(1);
      const stored = await testsOf(first.runId);
      expect(stored.map((t) => t.fullTitle).sort()).toEqual(expected.map((e) => e.fullTitle).sort());
      for (const e of expected) expect(stored.find((t) => t.fullTitle === e.fullTitle).status).toBe(e.status);
      const run = (await s.api('GET', `/runs/${first.runId}`, { auth: s.apiKey })).body;
      expect(run).toMatchObject({ status: 'failed', totalTests: expected.length, runTitle: 'fixture run' });

      const second = await replaySpool(file, client);
      expect(second.runId).toBe(first.runId);
      expect(second.sent).toEqual({ run: 0, suites: 0, tests: 0, artifacts: 0, finish: 0 });
      expect(second.skipped.tests).toBe(expected.length);
      expect((await runsOf()).length).toBe(runsBefore + 1);
      expect(await testsOf(first.runId)).toHaveLength(expected.length);
    });
  }

  it('a partial delivery (run created, tests refused with 503) is completed by replay without a second run', { timeout: 90_000 }, async () => {
    // Forwards everything to the real server except test batches, which fail as an overloaded server would.
    const proxy = await fakeServer(async (req, res) => {
      if (req.url?.includes('/tests/batch')) {
        req.resume();
        res.writeHead(503).end();
        return;
      }
      const chunks: Buffer[] = [];
      for await (const c of req) chunks.push(c as Buffer);
      const headers = Object.fromEntries(Object.entries(req.headers).filter(([k]) => !['host', 'connection', 'content-length'].includes(k))) as Record<string, string>;
      const upstream = await fetch(s.url + req.url, { method: req.method, headers, body: chunks.length ? Buffer.concat(chunks) : undefined });
      res.writeHead(upstream.status, { 'content-type': upstream.headers.get('content-type') ?? 'application/json' });
      res.end(Buffer.from(await upstream.arrayBuffer()));
    });
    const runsBefore = (await runsOf()).length;
    let pw: PwRun;
    try {
      pw = await playwright('mini.config.ts', reporterEnv({ TESTREPORT_URL: proxy.url, TESTREPORT_RETRY_BUDGET_MS: '1500' }));
    } finally {
      await proxy.close();
    }
    expect(pw.code).toBe(baselineMini.code);
    expect((await runsOf()).length).toBe(runsBefore + 1);
    const file = spoolFile(pw.spoolDir);
    const client = new TestReportClient({ apiKey: s.apiKey, url: s.url });
    const result = await replaySpool(file, client);
    expect(result.skipped.run).toBe(1);
    expect(result.sent.run).toBe(0);
    expect((await runsOf()).length).toBe(runsBefore + 1);
    const expected = expectedFromJson(pw.json);
    // On a mismatch the spool and the reporter's lines say which record went twice.
    const evidence = () => `${JSON.stringify(result)}\n${readFileSync(file, 'utf8').split('\n').map((l) => l.slice(0, 200)).join('\n')}\n${pw.stderr}`;
    const titles = (list: any[]) => list.map((t) => t.fullTitle).sort();
    expect(titles(await testsOf(result.runId)), evidence()).toEqual(titles(expected));
    await replaySpool(file, client);
    expect(titles(await testsOf(result.runId)), evidence()).toEqual(titles(expected));
  });
});

describe('quarantine', () => {
  it('passes a run whose only failures are quarantined, and fails one with another failure', { timeout: 90_000 }, async () => {
    const first = await playwright('quarantine.config.ts', reporterEnv());
    expect(first.code).toBe(1);
    const runId = (await runsOf())[0].id;
    const broken = (await testsOf(runId)).find((t) => t.fullTitle === 'known broken');
    const q = await s.api('POST', '/flakiness', { auth: s.apiKey, body: { testId: broken.id, projectId: s.projectId, isQuarantined: true } });
    expect(q.status).toBe(200);

    const forgiven = await playwright('quarantine.config.ts', reporterEnv());
    expect(forgiven.code).toBe(0);
    expect(forgiven.stderr).toMatch(/quarantined.*known broken/);
    expect((await runsOf())[0].status).toBe('passed');

    const other = await playwright('quarantine.config.ts', reporterEnv({ TR_EXTRA_FAILURE: '1' }));
    expect(other.code).toBe(1);
    expect((await runsOf())[0].status).toBe('failed');
  });
});
