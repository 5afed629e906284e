import { spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { chromium } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { cli, fixtureRunEnv, ROOT, useBuiltServer } from '../cli/helpers.js';

// Screenshot baselines end to end (issue 28): a suite with baselines runs sharded 2 ways after a UI
// change (mismatches and one new snapshot) with the real reporter in Chromium; both shards'
// snapshots carry their paths in the repository; accepted by API, `reporter baselines pull` in a
// copy of the suite writes the actuals byte for byte where they belong, and the suite passes again.
const setup = useBuiltServer('baselines-');

/** A checkout of the suite: the fixture copied, node_modules linked so its config resolves Playwright. */
function checkout(): string {
  const dir = setup.dir();
  cpSync(join(ROOT, 'test/reporter/fixtures/visual'), dir, { recursive: true });
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
  return dir;
}

function playwright(dir: string, args: string[], extra: Record<string, string>, report: boolean): Promise<{ code: number; output: string }> {
  const env = fixtureRunEnv(dir, { url: setup.server.url, apiKey: setup.server.apiKey }, extra);
  if (!report) delete env.TR_REPORTER;
  delete env.CI;
  const child = spawn(process.execPath, [join(ROOT, 'node_modules/@playwright/test/cli.js'), 'test', ...args], { cwd: dir, env });
  let output = '';
  child.stdout.on('data', (d) => (output += d));
  child.stderr.on('data', (d) => (output += d));
  return new Promise((r) => child.on('close', (c) => r({ code: c ?? -1, output })));
}

const api = (path: string, method = 'GET', body?: unknown) => setup.server.api(method, path, { auth: setup.server.apiKey, ...(body ? { body } : {}) }).then((r) => r.body);

describe('screenshot baselines end to end', () => {
  it('reviews both shards\' snapshots in one run, pulls the accepted actuals, and the suite passes again', { timeout: 300_000 }, async () => {
    // The repository: baselines drawn blue, as if committed.
    const repo = checkout();
    const made = await playwright(repo, ['--update-snapshots=all'], {}, false);
    expect(made.code, made.output).toBe(0);
    rmSync(join(repo, 'test-results'), { recursive: true, force: true });
    const ci = setup.dir();
    cpSync(repo, ci, { recursive: true, verbatimSymlinks: true });

    // CI after a UI change: red everywhere, a new check; two shards of one build.
    for (const shard of ['1/2', '2/2']) {
      const run = await playwright(ci, [`--shard=${shard}`], { TR_COLOR: 'red', TR_NEW: '1', TESTREPORT_BUILD_ID: 'build-28', TR_PW_OUTPUT: join(ci, `out-${shard[0]}`) }, true);
      expect(run.code, run.output).toBe(1);
    }
    const runs = (await api(`/runs?projectId=${setup.server.projectId}&ciBuildId=build-28`)).data as Array<{ id: string }>;
    expect(runs).toHaveLength(1);
    const runId = runs[0]!.id;
    const tests = (await api(`/tests?projectId=${setup.server.projectId}&runId=${runId}&limit=50`)).data as Array<{ id: string; title: string }>;
    const snapshots: Record<string, Array<{ name: string; snapshotPath: string; expected?: string; diff?: string }>> = {};
    for (const t of tests) snapshots[t.title] = await api(`/tests/${t.id}/snapshots`);
    expect(Object.fromEntries(Object.entries(snapshots).map(([k, v]) => [k, v.map((s) => [s.name, s.snapshotPath, Boolean(s.diff)])]))).toEqual({
      header: [['header', 'tests/__screenshots__/home.spec.ts/header.png', true]],
      footer: [['footer', 'tests/__screenshots__/home.spec.ts/footer.png', true]],
      cart: [['cart', 'tests/__screenshots__/cart.spec.ts/cart.png', true]],
      badge: [['badge', 'tests/__screenshots__/cart.spec.ts/badge.png', false]],
    });

    // `reporter upload` of the last shard's JSON report finds the same paths (config.configFile's folder).
    const uploaded = await cli(['upload', join(ci, 'report.json')], { TESTREPORT_URL: setup.server.url, TESTREPORT_API_KEY: setup.server.apiKey });
    expect(uploaded.code, uploaded.stderr).toBe(0);
    const upRun = uploaded.stdout.match(/to run (\S+)/)![1];
    const upTests = (await api(`/tests?projectId=${setup.server.projectId}&runId=${upRun}&limit=50`)).data as Array<{ id: string; title: string }>;
    expect(upTests.length).toBeGreaterThan(0);
    for (const t of upTests) expect((await api(`/tests/${t.id}/snapshots`)).map((s: { snapshotPath: string }) => s.snapshotPath)).toEqual(snapshots[t.title]!.map((s) => s.snapshotPath));

    // Review in Chromium: both shards' snapshots on one page; accept one by keyboard and a whole file.
    const browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium' });
    try {
      const page = await (await browser.newContext({ viewport: { width: 1280, height: 900 }, baseURL: setup.server.url })).newPage();
      await page.goto('/');
      await page.getByLabel('Email').fill(setup.server.owner.email);
      await page.getByLabel('Password').fill(setup.server.owner.password);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.waitForURL((u) => u.pathname !== '/');
      await page.goto(`/runs/${runId}`);
      await page.getByRole('link', { name: 'Review 4 screenshot changes' }).click();
      await page.waitForURL(`**/runs/${runId}/visual`);
      expect(await page.locator('main').innerText()).toContain('4 snapshots, 0 accepted');
      expect(await page.locator('[data-snapshot]').count()).toBe(4);
      // j focuses the first snapshot (cart.spec.ts › badge), a accepts it.
      await page.keyboard.press('j');
      await page.keyboard.press('a');
      await page.waitForLoadState('load');
      await expect.poll(() => page.locator('main').innerText()).toContain('4 snapshots, 1 accepted');
      await page.getByRole('region', { name: 'Snapshots of home.spec.ts' }).getByRole('button', { name: 'Accept all in this file' }).click();
      await expect.poll(() => page.locator('main').innerText()).toContain('4 snapshots, 3 accepted');
      // TESTREPORT_SCREENSHOTS=docs/img refreshes the picture docs/visual-review.md shows.
      const shots = process.env.TESTREPORT_SCREENSHOTS ? resolve(ROOT, process.env.TESTREPORT_SCREENSHOTS) : setup.dir();
      mkdirSync(shots, { recursive: true });
      await page.screenshot({ path: join(shots, 'visual-review.png'), fullPage: true });
    } finally {
      await browser.close();
    }
    const accepted = (t: string) => api(`/tests/${idOf(t)}/snapshots`).then((l: Array<{ acceptance: unknown }>) => l[0]!.acceptance !== null);
    const idOf = (title: string) => tests.find((t) => t.title === title)!.id;
    expect([await accepted('badge'), await accepted('header'), await accepted('footer'), await accepted('cart')]).toEqual([true, true, true, false]);
    // The rest by API.
    await api(`/tests/${idOf('cart')}/snapshots/accept`, 'POST', { names: ['cart'] });
    const baselines = (await api(`/runs/${runId}/baselines`)).data as Array<{ snapshotPath: string; url: string }>;
    expect(baselines).toHaveLength(4);

    // A fresh checkout (still blue): --check fails, pull writes the red actuals byte for byte.
    const local = checkout();
    cpSync(join(repo, 'tests/__screenshots__'), join(local, 'tests/__screenshots__'), { recursive: true });
    const env = { TESTREPORT_URL: setup.server.url, TESTREPORT_API_KEY: setup.server.apiKey };
    const check = await cli(['baselines', 'pull', '--run', runId, '--check'], env, { cwd: local });
    expect(check.code, check.stderr).toBe(1);
    const pull = await cli(['baselines', 'pull', '--run', runId], env, { cwd: local });
    expect(pull.code, pull.stderr).toBe(0);
    expect(pull.stdout).toContain('4 written, 0 unchanged');
    for (const b of baselines) {
      const served = Buffer.from(await (await fetch(b.url)).arrayBuffer());
      expect(readFileSync(join(local, b.snapshotPath)).equals(served), b.snapshotPath).toBe(true);
      expect(pull.stdout).toContain(b.snapshotPath);
    }
    expect(existsSync(join(local, 'tests/__screenshots__/cart.spec.ts/badge.png'))).toBe(true);
    expect((await cli(['baselines', 'pull', '--run', runId, '--check'], env, { cwd: local })).code).toBe(0);

    // The changed suite passes against the pulled baselines, writing nothing.
    const again = await playwright(local, ['--update-snapshots=none'], { TR_COLOR: 'red', TR_NEW: '1' }, false);
    expect(again.code, again.output).toBe(0);
  });
});
