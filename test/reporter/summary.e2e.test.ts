import { spawn } from 'node:child_process';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli, fixtureRunEnv, ROOT, useBuiltServer } from '../cli/helpers.js';

/*
 * The job summary on GitHub Actions from a real `playwright test` run with the reporter option
 * `summary: true` (the fixture sets it when TR_SUMMARY is set), and from the built `reporter summary`.
 */
const MARKER = '<!-- testreport-summary -->';
const setup = useBuiltServer('summary-');

/**
 * A proxy in front of the test server that passes everything through except the run summary, which
 * it never answers: a server too slow for the job summary.
 */
async function summaryBlackHole(target: string): Promise<{ url: string; close(): Promise<void> }> {
  const held: import('node:http').ServerResponse[] = [];
  const server: Server = createServer((req, res) => {
    if (/\/runs\/[^/]+\/summary/.test(req.url ?? '')) return void held.push(res);
    const up = request(new URL(req.url!, target), { method: req.method, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode!, answer.headers);
      answer.pipe(res);
    });
    up.on('error', () => res.destroy());
    req.pipe(up);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => {
      for (const res of held) res.destroy();
      server.closeAllConnections();
      return new Promise((r) => server.close(() => r()));
    },
  };
}

async function playwright(extra: Record<string, string>): Promise<{ code: number; stderr: string }> {
  const dir = setup.dir();
  const env = fixtureRunEnv(dir, setup.server, extra);
  const child = spawn(process.execPath, [join(ROOT, 'node_modules/@playwright/test/cli.js'), 'test', '-c', join(ROOT, 'test/reporter/fixtures/mini.config.ts')], {
    cwd: join(ROOT, 'test/reporter/fixtures'),
    env,
  });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  child.stdout.resume();
  const code = await new Promise<number>((r) => child.on('close', (c) => r(c ?? -1)));
  return { code, stderr };
}

const latestRunId = async () => (await setup.server.api('GET', `/runs?projectId=${setup.server.projectId}&limit=1`, { auth: setup.server.apiKey })).body.data[0].id as string;

describe('job summary on GitHub Actions', () => {
  it('the reporter with summary: true appends the run’s Markdown summary after sending', { timeout: 120_000 }, async () => {
    const file = join(setup.dir(), 'step-summary.md');
    writeFileSync(file, '## Build\n');
    const pw = await playwright({ TR_SUMMARY: '1', GITHUB_STEP_SUMMARY: file });
    expect(pw.code, pw.stderr).toBe(1); // one test fails: the summary changes nothing about the outcome
    const runId = await latestRunId();
    const written = readFileSync(file, 'utf8');
    expect(written.startsWith(`## Build\n${MARKER}\n`)).toBe(true);
    expect(written).toContain(`[Test run failed](${setup.server.url}/runs/${runId})`);
    expect(written).toContain('#### Failed tests (1)');
    expect(written).toMatch(/\[[^\]\n]*fails with a diff\]\(http:\/\/[^)]+\/tests\/[0-9a-f-]+\) — `[^`]*basic\.spec\.ts`(?: _\(new error\)_)?<br>`Error: expect\(received\)\.toBe\(expected\)/);
    expect(written).toContain('#### Flaky (passed after failing) (1)');
    expect(written).toContain('is flaky');
    expect(pw.stderr).not.toContain('job summary was not written');
  });

  it('a summary that cannot be written is one warning; the run is reported and its exit code unchanged', { timeout: 120_000 }, async () => {
    const pw = await playwright({ TR_SUMMARY: '1', GITHUB_STEP_SUMMARY: setup.dir() }); // a folder: the append fails
    expect(pw.code).toBe(1);
    const runId = await latestRunId();
    expect(pw.stderr).toContain(`${setup.server.url}/runs/${runId}`);
    expect(pw.stderr.match(/\[testreport\] the job summary was not written: .+/g)).toHaveLength(1);
  });

  it('a server that never answers the summary costs one warning after the time limit; the run is reported', { timeout: 120_000 }, async () => {
    const proxy = await summaryBlackHole(setup.server.url);
    try {
      const file = join(setup.dir(), 'step-summary.md');
      writeFileSync(file, '');
      const pw = await playwright({ TR_SUMMARY: '1', GITHUB_STEP_SUMMARY: file, TESTREPORT_URL: proxy.url });
      expect(pw.code).toBe(1);
      const runId = await latestRunId();
      expect(pw.stderr).toContain(`${proxy.url}/runs/${runId}`);
      expect((await setup.server.api('GET', `/runs/${runId}`, { auth: setup.server.apiKey })).body).toMatchObject({ status: 'failed', failedTests: 1, flakyTests: 1 });
      expect(pw.stderr.match(/\[testreport\] the job summary was not written: .+/g)).toHaveLength(1);
      expect(readFileSync(file, 'utf8')).toBe('');
    } finally {
      await proxy.close();
    }
  });

  it('without summary: true nothing is written', { timeout: 120_000 }, async () => {
    const file = join(setup.dir(), 'step-summary.md');
    writeFileSync(file, '');
    expect((await playwright({ GITHUB_STEP_SUMMARY: file })).code).toBe(1);
    expect(readFileSync(file, 'utf8')).toBe('');
  });

  it('the built `reporter summary` finds the run of the CI build and appends the same Markdown', { timeout: 60_000 }, async () => {
    const file = join(setup.dir(), 'step-summary.md');
    const run = (await setup.server.api('POST', '/runs', { auth: setup.server.apiKey, body: { projectId: setup.server.projectId, status: 'failed', branch: 'feature/x', ciBuildId: '9001' } })).body;
    const env = { TESTREPORT_URL: setup.server.url, TESTREPORT_API_KEY: setup.server.apiKey, GITHUB_ACTIONS: 'true', GITHUB_RUN_ID: '9001', GITHUB_STEP_SUMMARY: file };
    const r = await cli(['summary', '--format', 'markdown'], env);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.startsWith(`${MARKER}\n`)).toBe(true);
    expect(r.stdout).toContain(`(${setup.server.url}/runs/${run.id})`);
    expect(readFileSync(file, 'utf8')).toBe(`${r.stdout.trimEnd()}\n\n`);
    const json = await cli(['summary', '--run', run.id, '--format', 'json', '--no-step-summary'], env);
    expect(json.json).toMatchObject({ run: { id: run.id, branch: 'feature/x' }, base: { branch: 'main' } });
    const bad = await cli(['summary', '--run', run.id, '--build', '9001'], env);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('pass --run or --build, not both');
  });
});
