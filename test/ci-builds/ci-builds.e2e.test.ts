/**
 * One run per CI build, end to end (issue 12): real `playwright test --shard=i/3` processes with our
 * reporter, started together with one GitHub Actions environment, report into one run; a re-run of a
 * shard is the next attempt of the same run; a shard that never finishes is timed out; per-shard JSON
 * reports uploaded with the CLI join one run; every finish delivers run.completed/run.failed once.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReceiver, startTestServer, type Receiver, type TestServer } from '@testreport/server/testing';
import { assertBuilt, cli, ROOT } from '../cli/helpers.js';

const fixtures = join(ROOT, 'test/ci-builds/fixtures');
const config = join(fixtures, 'ci.config.ts');
const reporterEntry = join(ROOT, 'packages/reporter/dist/index.js');
const playwrightCli = join(ROOT, 'node_modules/@playwright/test/cli.js');

const tmpDirs: string[] = [];
const temp = () => {
  const d = mkdtempSync(join(tmpdir(), 'testreport-ci-'));
  tmpDirs.push(d);
  return d;
};

/** The variables a GitHub Actions matrix job has; the same for all shards of one workflow run. */
const github = (runId: string, attempt = 1) => ({
  GITHUB_ACTIONS: 'true',
  GITHUB_RUN_ID: runId,
  GITHUB_RUN_ATTEMPT: String(attempt),
  GITHUB_JOB: 'e2e',
  GITHUB_REPOSITORY: 'acme/shop',
  GITHUB_SHA: '0123456789abcdef0123456789abcdef01234567',
  GITHUB_REF_NAME: 'main',
  GITHUB_SERVER_URL: 'https://github.com',
});

/** The child's environment: ours only, no CI markers of the machine running the tests. */
function childEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!/^(TESTREPORT_|GITHUB_|GITLAB_|CI$|CI_|CIRCLE|BUILDKITE|TF_BUILD|JENKINS_URL|TRAVIS|DRONE|BITBUCKET_|TEAMCITY_)/.test(k)) env[k] = v;
  return { ...env, FORCE_COLOR: '0', ...extra };
}

interface Shard {
  code: number;
  stderr: string;
  /** Playwright's own JSON report of the shard: the reference. */
  json: any;
  jsonFile: string;
}

/** `playwright test --shard=i/n` started as a CI job starts it; our reporter only when `report` is set. */
function startShard(index: number, total: number, env: Record<string, string>, report = true) {
  const dir = temp();
  const jsonFile = join(dir, 'report.json');
  const child = spawn(process.execPath, [playwrightCli, 'test', '-c', config, `--shard=${index}/${total}`], {
    cwd: fixtures,
    env: childEnv({ TR_JSON_OUT: jsonFile, TR_SPOOL_DIR: join(dir, 'spool'), TR_PW_OUTPUT: join(dir, 'out'), TR_REPORTER: report ? reporterEntry : '', ...env }),
  });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  child.stdout.resume();
  const closed = new Promise<number>((res) => child.on('close', (c) => res(c ?? -1)));
  return { child, closed, jsonFile, stderr: () => stderr };
}

/** A shard run to its end. */
async function shard(index: number, total: number, env: Record<string, string>, report = true): Promise<Shard> {
  const s = startShard(index, total, env, report);
  const code = await s.closed;
  return { code, stderr: s.stderr(), json: JSON.parse(readFileSync(s.jsonFile, 'utf8')), jsonFile: s.jsonFile };
}

async function until<T>(what: string, probe: () => Promise<T | undefined>): Promise<T> {
  for (let i = 0; i < 300; i++) {
    const v = await probe();
    if (v !== undefined) return v;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`gave up waiting for ${what}`);
}

/** Counts of Playwright's JSON reports together, in the run's terms. */
function countsOf(reports: any[]) {
  const c = { totalTests: 0, passedTests: 0, failedTests: 0, skippedTests: 0, flakyTests: 0 };
  for (const r of reports) {
    const s = r.stats;
    c.passedTests += s.expected;
    c.failedTests += s.unexpected;
    c.flakyTests += s.flaky;
    c.skippedTests += s.skipped;
    c.totalTests += s.expected + s.unexpected + s.flaky + s.skipped;
  }
  return c;
}

/** The files a shard's JSON report ran. */
const filesOf = (report: any): string[] => report.suites.map((s: any) => s.file).sort();

let t: TestServer;
let receiver: Receiver;
/** Moves the server's clock: the shard timeout is checked against it. */
let clockShift = 0;

beforeAll(async () => {
  assertBuilt();
  [t, receiver] = await Promise.all([startTestServer({ backgroundJobs: false, now: () => new Date(Date.now() + clockShift) }), startReceiver()]);
  const hook = await t.api('POST', '/webhooks', { auth: t.apiKey, body: { projectId: t.projectId, url: receiver.url, events: ['run.completed', 'run.failed'] } });
  expect(hook.status).toBe(201);
}, 60_000);
afterAll(async () => {
  await Promise.all([receiver?.close(), t?.close()]);
  for (const d of tmpDirs) rmSync(d, { recursive: true, force: true });
});

const env = () => ({ TESTREPORT_URL: t.url, TESTREPORT_API_KEY: t.apiKey });
const getRun = async (id: string) => (await t.api('GET', `/runs/${id}`, { auth: t.apiKey })).body;
const shardsOf = async (id: string) => (await t.api('GET', `/runs/${id}/shards`, { auth: t.apiKey })).body.data as any[];
const runsOfBuild = async (buildId: string) =>
  (await t.api('GET', `/runs?projectId=${t.projectId}&ciBuildId=${encodeURIComponent(buildId)}`, { auth: t.apiKey })).body.data as any[];
const testsOf = async (runId: string) => (await t.api('GET', `/tests?projectId=${t.projectId}&runId=${runId}&limit=500`, { auth: t.apiKey })).body.data as any[];

/**
 * The deliveries of one run as `<event>#<finishCount>`, after the worker sent everything due. Each
 * finish sends run.completed, and run.failed too when tests failed (docs/decisions.md §8).
 */
async function deliveriesFor(runId: string) {
  await t.server.services.webhooks.deliverDueOnce();
  const sent = receiver.received.map((r) => JSON.parse(r.body)).filter((p) => p.data?.run?.id === runId);
  // Sent concurrently: the order of arrival says nothing.
  return sent.map((p) => `${p.event}#${p.data.run.finishCount}`).sort();
}

describe('a sharded GitHub Actions build', () => {
  let reports: Shard[];
  let runId: string;

  beforeAll(async () => {
    // The three matrix jobs start together.
    reports = await Promise.all([1, 2, 3].map((i) => shard(i, 3, { ...env(), ...github('9001') })));
    for (const [i, r] of reports.entries()) {
      expect(r.stderr).not.toMatch(/could not|refused|spooled/);
      // The job's log says which run it joined.
      expect(r.stderr).toContain(`(shard ${i + 1}/3 of CI build 9001) — ${t.url}/runs/`);
    }
    const runs = await runsOfBuild('9001');
    expect(runs).toHaveLength(1);
    runId = runs[0].id;
  }, 180_000);

  it('is one run holding every test, counted as the three JSON reports together', async () => {
    const run = await getRun(runId);
    expect(run).toMatchObject({ status: 'passed', ciProvider: 'GitHub Actions', ciBuildId: '9001', group: 'e2e', shardTotal: 3, finishedShards: 3, finishReason: 'shards', ...countsOf(reports.map((r) => r.json)) });
    expect(run.ciBuildUrl).toBe('https://github.com/acme/shop/actions/runs/9001');
    const tests = await testsOf(runId);
    expect(tests).toHaveLength(run.totalTests);
    const files = new Set(tests.map((x) => x.filePath));
    expect([...files].sort()).toEqual(reports.flatMap((r) => filesOf(r.json)).sort());
    expect((await shardsOf(runId)).map((s) => [s.index, s.attempt, s.status])).toEqual([[1, 1, 'passed'], [2, 1, 'passed'], [3, 1, 'passed']]);
  });

  it('delivered run.completed exactly once', async () => {
    expect(await deliveriesFor(runId)).toEqual(['run.completed#1']);
  });

  it('uploaded as three shard JSON reports with the CLI, is one run again', async () => {
    const other = await t.createOtherTenant();
    const cliEnv = { TESTREPORT_URL: t.url, TESTREPORT_API_KEY: other.apiKey, ...github('7007') };
    const results = await Promise.all(reports.map((r) => cli(['upload', r.jsonFile, '--json'], cliEnv)));
    for (const r of results) expect(r.code, r.stderr).toBe(0);
    expect(new Set(results.map((r) => r.json.runId)).size).toBe(1);
    const run = (await t.api('GET', `/runs/${results[0].json.runId}`, { auth: other.apiKey })).body;
    expect(run).toMatchObject({ status: 'passed', ciBuildId: '7007', shardTotal: 3, finishedShards: 3, ...countsOf(reports.map((r) => r.json)) });
  });

  it('plans balanced shards from the stored durations that select every file exactly once', async () => {
    const plans = await Promise.all([1, 2, 3].map((i) => cli(['shard-plan', '--total', '3', '--index', String(i), '-c', config, '--json'], env(), { cwd: fixtures })));
    for (const p of plans) expect(p.code, p.stderr).toBe(0);
    expect(plans.map((p) => p.json.source)).toEqual(['history', 'history', 'history']);
    const planned = plans.map((p) => p.json.shards[0].files as string[]);
    expect(planned.flat().sort()).toEqual(['alpha.spec.ts', 'bravo.spec.ts', 'charlie.spec.ts', 'delta.spec.ts', 'echo.spec.ts', 'foxtrot.spec.ts']);
    // What `npx playwright test $(reporter shard-plan …)` runs: exactly the planned files.
    for (const [i, p] of plans.entries()) {
      const listed = await listFiles(p.json.shards[0].args);
      expect(listed).toEqual(planned[i].slice().sort());
    }
  }, 120_000);
});

/** The files `playwright test --list <args>` would run. */
async function listFiles(args: string[]): Promise<string[]> {
  const child = spawn(process.execPath, [playwrightCli, 'test', '-c', config, '--list', '--reporter=json', ...args], { cwd: fixtures, env: childEnv({}) });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  await new Promise((res) => child.on('close', res));
  return [...new Set<string>(JSON.parse(out.slice(out.indexOf('{'))).suites.map((s: any) => s.file))].sort();
}

describe('a shard re-run', () => {
  it('is the next attempt of the same run: the latest attempt counts, a fail-then-pass is flaky, and each finish is delivered once', async () => {
    const first = await Promise.all([1, 2, 3].map((i) => shard(i, 3, { ...env(), ...github('9002'), TR_BROKEN: '1' })));
    const [run] = await runsOfBuild('9002');
    const failed = await getRun(run.id);
    expect(failed).toMatchObject({ status: 'failed', failedTests: 1, flakyTests: 0, finishedShards: 3, ...pick(countsOf(first.map((r) => r.json)), 'totalTests') });

    // "Re-run failed jobs": only the shard that ran echo.spec.ts, as attempt 2, now fixed.
    const broken = first.findIndex((r) => filesOf(r.json).includes('echo.spec.ts')) + 1;
    const rerun = await shard(broken, 3, { ...env(), ...github('9002', 2) });
    expect(rerun.code).toBe(0);
    expect(await runsOfBuild('9002')).toHaveLength(1);

    const after = await getRun(run.id);
    // Every test once (its latest attempt), the re-run shard's tests from attempt 2.
    const expected = countsOf([...first.filter((_, i) => i + 1 !== broken).map((r) => r.json), rerun.json]);
    expect(after).toMatchObject({ status: 'passed', totalTests: expected.totalTests, failedTests: 0, flakyTests: 1, passedTests: expected.passedTests - 1, finishCount: 2 });
    const shards = await shardsOf(run.id);
    expect(shards.filter((s) => s.index === broken).map((s) => [s.attempt, s.status])).toEqual([[1, 'failed'], [2, 'passed']]);

    // The first finish (failed) and the finish after the re-run (passed), each delivered once.
    expect(await deliveriesFor(run.id)).toEqual(['run.completed#1', 'run.completed#2', 'run.failed#1']);
  }, 180_000);
});

describe('a shard that never finishes', () => {
  it('leaves the run running until the shard timeout, which finishes it as 2 of 3 shards', async () => {
    const set = await t.api('PATCH', `/projects/${t.projectId}/settings`, { auth: t.owner, body: { shardTimeoutMinutes: 5 } });
    expect(set.status).toBe(200);
    // Shard 3's runner hangs in a test and is killed (a lost CI machine): it joined the run, and
    // never reports its end.
    const hung = startShard(3, 3, { ...env(), ...github('9003'), TR_HANG: '1' });
    const done = await Promise.all([1, 2].map((i) => shard(i, 3, { ...env(), ...github('9003') })));
    const doneFiles = new Set(done.flatMap((r) => filesOf(r.json)));
    // Killed once it sent the results of the tests before the hanging one.
    const run = await until('shard 3 to send results', async () => {
      const [r] = await runsOfBuild('9003');
      return r && (await testsOf(r.id)).some((x) => !doneFiles.has(x.filePath)) ? r : undefined;
    });
    hung.child.kill('SIGKILL');
    await hung.closed;
    expect((await getRun(run.id)).status).toBe('running');

    // Not yet: four minutes of silence are within the timeout.
    clockShift = 4 * 60_000;
    await t.server.services.shardTimeouts.checkOnce();
    expect((await getRun(run.id)).status).toBe('running');

    clockShift = 6 * 60_000;
    try {
      await t.server.services.shardTimeouts.checkOnce();
      const finished = await getRun(run.id);
      // What arrived counts: shards 1 and 2 whole, and whatever shard 3 sent before it hung.
      const tests = await testsOf(run.id);
      const only = (status: string) => tests.filter((x) => x.status === status).length;
      expect(finished).toMatchObject({ status: 'passed', finishReason: 'timeout', finishedShards: 2, shardTotal: 3, totalTests: tests.length, passedTests: only('passed'), skippedTests: only('skipped'), failedTests: 0 });
      expect(tests.length).toBeGreaterThan(countsOf(done.map((r) => r.json)).totalTests);
      for (const f of done.flatMap((r) => filesOf(r.json))) expect(tests.some((x) => x.filePath === f)).toBe(true);
      expect((await shardsOf(run.id)).map((s) => [s.index, s.status])).toEqual([[1, 'passed'], [2, 'passed'], [3, 'timed_out']]);
      // Delivered while the clock is still ahead: the delivery is due at the (moved) time of the finish.
      expect(await deliveriesFor(run.id)).toEqual(['run.completed#1']);
      await t.server.services.shardTimeouts.checkOnce();
      expect(await deliveriesFor(run.id)).toEqual(['run.completed#1']);
    } finally {
      clockShift = 0;
    }
  }, 180_000);

  it('reopens the finished run when the lost shard is re-run, and finishes it again with every shard', async () => {
    const [run] = await runsOfBuild('9003');
    // "Re-run failed jobs" on the killed shard: attempt 2, which replaces what attempt 1 had sent.
    const late = await shard(3, 3, { ...env(), ...github('9003', 2) });
    expect(late.code).toBe(0);
    const done = await Promise.all([1, 2].map((i) => shard(i, 3, {}, false)));
    const again = await getRun(run.id);
    expect(again).toMatchObject({ status: 'passed', finishReason: 'shards', finishedShards: 3, finishCount: 2, ...countsOf([...done.map((r) => r.json), late.json]) });
    expect((await shardsOf(run.id)).filter((x) => x.index === 3).map((x) => [x.attempt, x.status])).toEqual([[1, 'timed_out'], [2, 'passed']]);
    expect(await deliveriesFor(run.id)).toEqual(['run.completed#1', 'run.completed#2']);
  }, 180_000);
});

describe('a matrix over browsers', () => {
  it('keeps one run per TESTREPORT_GROUP within one workflow run', async () => {
    const jobs = await Promise.all(['chromium', 'firefox'].map((b) => shard(1, 1, { ...env(), ...github('9005'), TESTREPORT_GROUP: `e2e-${b}` })));
    const runs = await runsOfBuild('9005');
    expect(runs.map((r) => r.id)).toHaveLength(2);
    const full = await Promise.all(runs.map((r) => getRun(r.id)));
    expect(full.map((r) => r.group).sort()).toEqual(['e2e-chromium', 'e2e-firefox']);
    for (const r of full) expect(r).toMatchObject({ status: 'passed', finishedShards: 1, ...countsOf([jobs[0].json]) });
  }, 120_000);
});

/** A JUnit file of two tests, one failing (`i` keeps the names of two files apart). */
function junit(i: number): string {
  const file = join(temp(), `junit-${i}.xml`);
  writeFileSync(
    file,
    `<?xml version="1.0" encoding="UTF-8"?><testsuites><testsuite name="api ${i}" tests="2" failures="1">` +
      `<testcase classname="api.part${i}" name="lists" time="0.5"/>` +
      `<testcase classname="api.part${i}" name="creates" time="0.2"><failure message="boom">boom</failure></testcase>` +
      `</testsuite></testsuites>`,
  );
  return file;
}

describe('JUnit uploads of parallel jobs', () => {
  it('join one run by the CI parallel slot (GitLab parallel: 2), or by --shard and --build-id anywhere', async () => {
    const gitlab = (i: number) => ({ ...env(), GITLAB_CI: 'true', CI_PIPELINE_ID: '555', CI_JOB_NAME: `api ${i}/2`, CI_NODE_INDEX: String(i), CI_NODE_TOTAL: '2' });
    const viaCi = await Promise.all([1, 2].map((i) => cli(['upload', junit(i), '--json'], gitlab(i))));
    const viaFlags = await Promise.all([1, 2].map((i) => cli(['upload', junit(i), '--shard', `${i}/2`, '--build-id', 'nightly-2026-11-24', '--json'], env())));
    for (const [results, buildId, group] of [[viaCi, '555', 'api'], [viaFlags, 'nightly-2026-11-24', null]] as const) {
      for (const r of results) expect(r.code, r.stderr).toBe(0);
      expect(new Set(results.map((r) => r.json.runId)).size).toBe(1);
      expect(await getRun(results[0].json.runId)).toMatchObject({ ciBuildId: buildId, group, status: 'failed', totalTests: 4, failedTests: 2, passedTests: 2, shardTotal: 2, finishedShards: 2 });
    }
  }, 60_000);
});

describe('reporter shard-plan without history or server', () => {
  it('prints Playwright\'s own --shard, so the same command line always works', async () => {
    const fresh = await t.createOtherTenant();
    const noHistory = await cli(['shard-plan', '--total', '3', '--index', '2', '--no-discover'], { TESTREPORT_URL: t.url, TESTREPORT_API_KEY: fresh.apiKey });
    expect([noHistory.code, noHistory.stdout]).toEqual([0, '--shard=2/3\n']);
    expect(noHistory.stderr).toContain('no finished runs');
    const noKey = await cli(['shard-plan', '--total', '3', '--index', '3'], {});
    expect([noKey.code, noKey.stdout]).toEqual([0, '--shard=3/3\n']);
    // Nothing listens on the discard port: the server is down.
    const down = await cli(['shard-plan', '--total', '3', '--index', '1', '--no-discover'], { TESTREPORT_URL: 'http://127.0.0.1:9', TESTREPORT_API_KEY: t.apiKey });
    expect([down.code, down.stdout]).toEqual([0, '--shard=1/3\n']);
    expect(down.stderr).toContain('no plan from the server');
    const bad = await cli(['shard-plan', '--total', '3', '--index', '4'], {});
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--index must be a whole number from 1 to 3');
  }, 60_000);
});

describe('reporter runs complete', () => {
  it('finishes the run of the CI build it runs in, found without an id, and only once', async () => {
    const created = await t.api('POST', '/runs', { auth: t.apiKey, body: { projectId: t.projectId, status: 'running', ciBuildId: '9004', group: 'e2e', shardCurrent: 1, shardTotal: 2 } });
    expect(created.status).toBe(201);
    const res = await cli(['runs', 'complete', '--json'], { ...env(), ...github('9004') });
    expect(res.code, res.stderr).toBe(0);
    expect(res.json).toMatchObject({ id: created.body.id, finishReason: 'complete' });
    const again = await cli(['runs', 'complete', created.body.id, '--json'], env());
    expect(again.code, again.stderr).toBe(0);
    expect(await deliveriesFor(created.body.id)).toEqual(['run.completed#1']);
    const missing = await cli(['runs', 'cancel'], { ...env(), ...github('no-such-build') });
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('no run of CI build no-such-build');
  }, 60_000);
});

function pick<T extends object>(o: T, ...keys: (keyof T)[]): Partial<T> {
  return Object.fromEntries(keys.map((k) => [k, o[k]])) as Partial<T>;
}
