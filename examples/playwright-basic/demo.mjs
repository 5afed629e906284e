#!/usr/bin/env node
// npm run demo: a testreport server on a temporary data dir, the example suite run three times
// with @testreport/reporter, each run's summary through the CLI (`reporter runs get`), then the
// list of runs and the flakiness table (`reporter runs list`, `reporter flaky list`).
// `--keep` leaves the data dir behind (and prints how to serve it) instead of deleting it.
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CHROMIUM_HINT, findChromium } from '../../test/setup/chromium.mjs';

const here = fileURLToPath(new URL('.', import.meta.url));
const root = join(here, '../..');
const serverBin = join(root, 'packages/server/dist/bin.js');
const cliBin = join(root, 'packages/cli/dist/bin.js');
const playwrightCli = join(root, 'node_modules/@playwright/test/cli.js');
const RUNS = 3;
const keep = process.argv.includes('--keep');

for (const [file, hint] of [[serverBin, 'npm run build'], [cliBin, 'npm run build'], [join(root, 'packages/reporter/dist/index.js'), 'npm run build'], [playwrightCli, 'npm ci']]) {
  if (!existsSync(file)) fail(`${file} is missing: run \`${hint}\` at the repository root first`);
}
if (!findChromium()) fail(CHROMIUM_HINT);

function fail(message) {
  process.stderr.write(`demo: ${message}\n`);
  process.exit(1);
}

const heading = (text) => process.stdout.write(`\n\x1b[1m=== ${text}\x1b[0m\n`);

function run(cmd, args, env) {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd: here, env, stdio: 'inherit' });
    child.once('error', reject);
    child.once('exit', (code, signal) => resolve(code ?? (signal ? 1 : 0)));
  });
}

function startServer(dataDir) {
  const child = spawn(process.execPath, [serverBin, 'serve', '--port', '0', '--data-dir', dataDir, '--no-first-run'], { stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
      const m = /testreport listening on (\S+)/.exec(out);
      if (m) resolve({ url: m[1], child });
    });
    child.once('exit', (code) => reject(new Error(`server exited with ${code}`)));
  });
}

const dataDir = mkdtempSync(join(tmpdir(), 'testreport-demo-'));
heading(`testreport server (data dir ${dataDir})`);
const init = JSON.parse(
  execFileSync(process.execPath, [serverBin, 'init', '--email', 'demo@example.com', '--password', 'demo-password', '--team', 'Demo', '--project', 'Tasks app', '--json', '--data-dir', dataDir], { encoding: 'utf8' }),
);
const server = await startServer(dataDir);
process.stdout.write(`listening on ${server.url}; project ${init.projectId}; API key ${init.apiKey.slice(0, 9)}…${init.apiKey.slice(-4)}\n`);

// What a CI job sets: the reporter and the CLI both read these.
const env = { ...process.env, TESTREPORT_URL: server.url, TESTREPORT_API_KEY: init.apiKey, TESTREPORT_PROJECT_ID: init.projectId, CI: '' };
let exitCode = 0;
let lastRunId;
try {
  for (let n = 1; n <= RUNS; n++) {
    heading(`run ${n} of ${RUNS}: npx playwright test (one test fails on purpose, one is flaky)`);
    const code = await run(process.execPath, [playwrightCli, 'test'], { ...env, RUN_TITLE: `demo run ${n}` });
    // 1 is the expected outcome (the failing test); anything else means the suite itself broke.
    if (code !== 0 && code !== 1) throw new Error(`playwright exited with ${code}`);
    const newest = JSON.parse(execFileSync(process.execPath, [cliBin, 'runs', 'list', '--limit', '1', '--json'], { env, encoding: 'utf8' }));
    const runId = newest.data[0]?.id;
    if (!runId) throw new Error('the server has no run: the reporter did not report');
    lastRunId = runId;
    heading(`run ${n} as stored: reporter runs get ${runId}`);
    if ((await run(process.execPath, [cliBin, 'runs', 'get', runId], env)) !== 0) throw new Error('reporter runs get failed');
  }
  heading(`the failed tests of run ${RUNS}, and the screenshots and traces uploaded for that run`);
  if ((await run(process.execPath, [cliBin, 'tests', 'list', '--run', lastRunId, '--status', 'failed'], env)) !== 0) throw new Error('reporter tests list failed');
  const artifacts = await fetch(`${server.url}/api/v1/artifacts?runId=${lastRunId}`, { headers: { 'x-api-key': init.apiKey } }).then((r) => r.json());
  for (const a of artifacts.data ?? []) process.stdout.write(`${a.type.padEnd(10)} ${String(a.fileSize).padStart(8)} B  ${a.fileName}  (signed URL until ${a.expiresAt})\n`);
  heading('all runs: reporter runs list');
  if ((await run(process.execPath, [cliBin, 'runs', 'list'], env)) !== 0) throw new Error('reporter runs list failed');
  heading('flakiness after three runs: reporter flaky list');
  if ((await run(process.execPath, [cliBin, 'flaky', 'list'], env)) !== 0) throw new Error('reporter flaky list failed');
} catch (err) {
  process.stderr.write(`demo: ${err.message}\n`);
  exitCode = 1;
} finally {
  const exited = new Promise((r) => server.child.once('exit', r));
  server.child.kill('SIGTERM');
  await exited;
  if (keep) {
    process.stdout.write(`\nData kept in ${dataDir}. Serve it again with:\n  node packages/server/dist/bin.js serve --data-dir ${dataDir}\n(sign in as demo@example.com / demo-password)\n`);
  } else {
    rmSync(dataDir, { recursive: true, force: true });
  }
}
process.exit(exitCode);
