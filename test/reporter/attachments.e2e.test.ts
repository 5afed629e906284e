import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli, fixtureRunEnv, ROOT, useBuiltServer } from '../cli/helpers.js';

// Attachments made with `testInfo.attach(name, { body, contentType })` (issue 16.1): live, spooled, and
// from Playwright's JSON report, where the json reporter writes the body as base64.
const config = join(ROOT, 'test/reporter/fixtures/attach.config.ts');
const FAILING = 'fails with a screenshot body';

const setup = useBuiltServer('attach-');

async function runPlaywright(url: string): Promise<{ stderr: string; dir: string }> {
  const dir = setup.dir();
  const env = fixtureRunEnv(dir, { url, apiKey: setup.server.apiKey }, { TESTREPORT_RETRY_BUDGET_MS: '1000' });
  const child = spawn(process.execPath, [join(ROOT, 'node_modules/@playwright/test/cli.js'), 'test', '-c', config], { cwd: join(ROOT, 'test/reporter/fixtures'), env });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  child.stdout.resume();
  const code = await new Promise<number>((r) => child.on('close', (c) => r(c ?? -1)));
  expect(code, stderr).toBe(1);
  return { stderr, dir };
}

/** Artifacts the server holds for each test title of a run. */
async function artifactsByTest(runId: string): Promise<Record<string, Array<{ type: string; mimeType: string; fileName: string; fileSize: number }>>> {
  const tests = (await setup.server.api('GET', `/tests?projectId=${setup.server.projectId}&runId=${runId}&limit=50`, { auth: setup.server.apiKey })).body.data as any[];
  const artifacts = (await setup.server.api('GET', `/artifacts?runId=${runId}`, { auth: setup.server.apiKey })).body.data as any[];
  const out: Record<string, any[]> = {};
  for (const t of tests) out[t.title] = artifacts.filter((a) => a.testId === t.id).map(({ type, mimeType, fileName, fileSize }) => ({ type, mimeType, fileName, fileSize }));
  return out;
}

const latestRunId = async () => (await setup.server.api('GET', `/runs?projectId=${setup.server.projectId}&limit=1`, { auth: setup.server.apiKey })).body.data[0].id as string;

async function closedPortUrl(): Promise<string> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const { port } = srv.address() as AddressInfo;
  await new Promise<void>((r) => srv.close(() => r()));
  return `http://127.0.0.1:${port}`;
}

describe('attachments with a body', () => {
  let live: { stderr: string; dir: string };

  it('the live reporter uploads a failing test’s PNG body as a screenshot; the oversized one is counted, not sent', { timeout: 120_000 }, async () => {
    live = await runPlaywright(setup.server.url);
    const runId = await latestRunId();
    expect(live.stderr).toContain(`${setup.server.url}/runs/${runId}`);
    const byTest = await artifactsByTest(runId);
    expect(byTest[FAILING]).toEqual([{ type: 'screenshot', mimeType: 'image/png', fileName: 'checkout.png', fileSize: 70 }]);
    // uploadArtifacts: 'failures' (the fixture's setting) holds for bodies as for files.
    expect(byTest['passes with a screenshot body']).toEqual([]);
    expect(live.stderr).toMatch(/\[testreport\] 1 artifact\(s\) not uploaded .*huge\.png/);
  });

  it('with the server down the body goes to the spool, and `reporter upload` of the spool stores it', { timeout: 120_000 }, async () => {
    const down = await runPlaywright(await closedPortUrl());
    expect(down.stderr).toMatch(/spooled to/);
    const spoolDir = join(down.dir, 'spool');
    // Playwright clears its output folder on the next run: the spool must hold the bytes itself.
    rmSync(join(down.dir, 'test-results'), { recursive: true, force: true });
    const res = await cli(['upload', spoolDir, '--json'], { TESTREPORT_URL: setup.server.url, TESTREPORT_API_KEY: setup.server.apiKey });
    expect(res.code, res.stderr).toBe(0);
    const byTest = await artifactsByTest(res.json.results[0].runId);
    expect(byTest[FAILING]).toEqual([{ type: 'screenshot', mimeType: 'image/png', fileName: 'checkout.png', fileSize: 70 }]);
    expect(readdirSync(spoolDir).some((f) => f.endsWith('-files'))).toBe(true);
  });

  it('`reporter upload` of the JSON report decodes base64 bodies and uploads them under the same rules', { timeout: 120_000 }, async () => {
    const report = join(live.dir, 'report.json');
    expect(readFileSync(report, 'utf8')).toContain('"body":');
    const res = await cli(['upload', report], { TESTREPORT_URL: setup.server.url, TESTREPORT_API_KEY: setup.server.apiKey });
    expect(res.code, res.stderr).toBe(0);
    const runId = res.stdout.match(/to run (\S+)/)![1];
    // The page link, like the live reporter's, not the API URL.
    expect(res.stdout).toContain(`run: ${setup.server.url}/runs/${runId}`);
    const byTest = await artifactsByTest(runId);
    expect(byTest[FAILING]).toEqual([{ type: 'screenshot', mimeType: 'image/png', fileName: 'checkout.png', fileSize: 70 }]);
    expect(byTest['passes with a screenshot body']).toEqual([{ type: 'screenshot', mimeType: 'image/png', fileName: 'fine.png', fileSize: 70 }]);
    expect(res.stderr).toMatch(/attachment not uploaded \(too_large\): huge\.png/);
    const again = await cli(['upload', report, '--json'], { TESTREPORT_URL: setup.server.url, TESTREPORT_API_KEY: setup.server.apiKey });
    expect(again.json.runId).toBe(runId);
    expect(again.json.runUrl).toBe(`${setup.server.url}/api/v1/runs/${runId}`);
    expect(Object.values(await artifactsByTest(runId)).flat()).toHaveLength(2);
    expect(existsSync(report)).toBe(true);
  });
});
