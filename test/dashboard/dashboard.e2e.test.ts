import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, tokenFrom, waitForMail, type TestServer } from '@testreport/server/testing';

/** vitest polls for 1 s by default; scrypt and page loads take longer on a shared machine. */
const POLL = { timeout: 15_000 };
const root = resolve(fileURLToPath(new URL('../..', import.meta.url)));
const playwrightCli = join(root, 'node_modules/@playwright/test/cli.js');

let t: TestServer;
let browser: Browser;
let runLink: string;
const tmp = mkdtempSync(join(tmpdir(), 'testreport-dash-'));
// Screenshots go to a temp folder so a test run leaves the work tree clean;
// TESTREPORT_SCREENSHOTS=docs/img refreshes the ones docs/dashboard.md shows.
const shots = process.env.TESTREPORT_SCREENSHOTS ? resolve(root, process.env.TESTREPORT_SCREENSHOTS) : join(tmp, 'shots');

/**
 * Playwright records video with its own ffmpeg build, which cannot be downloaded here; Debian's
 * ffmpeg does the same job when placed where Playwright looks for it.
 */
function browsersDirWithFfmpeg(): string {
  const dir = join(tmp, 'browsers');
  if (existsSync(dir)) return dir;
  mkdirSync(join(dir, 'ffmpeg-1013'), { recursive: true });
  symlinkSync('/usr/bin/ffmpeg', join(dir, 'ffmpeg-1013', 'ffmpeg-linux'));
  writeFileSync(join(dir, 'ffmpeg-1013', 'INSTALLATION_COMPLETE'), '');
  return dir;
}

/** A real `playwright test` run with the built reporter; returns the run link the reporter printed. */
async function reportRealRun(): Promise<string> {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    TR_JSON_OUT: join(tmp, 'report.json'),
    TR_SPOOL_DIR: join(tmp, 'spool'),
    TR_PW_OUTPUT: join(tmp, 'test-results'),
    TR_REPORTER: join(root, 'packages/reporter/dist/index.js'),
    TESTREPORT_URL: t.url,
    TESTREPORT_API_KEY: t.apiKey,
    PLAYWRIGHT_BROWSERS_PATH: browsersDirWithFfmpeg(),
    FORCE_COLOR: '0',
  };
  delete env.GITHUB_ACTIONS;
  const child = spawn(process.execPath, [playwrightCli, 'test', '-c', join(root, 'test/dashboard/fixtures/dashboard.config.ts')], { cwd: join(root, 'test/dashboard/fixtures'), env });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  await new Promise((r) => child.on('close', r));
  const link = new RegExp(`${t.url}/runs/[0-9a-f-]{36}`).exec(out);
  if (!link) throw new Error(`the reporter printed no run link:\n${out}`);
  return link[0];
}

async function signIn(page: Page) {
  await page.getByLabel('Email').fill(t.owner.email);
  await page.getByLabel('Password').fill(t.owner.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

async function context(opts: { width?: number; dark?: boolean } = {}): Promise<BrowserContext> {
  return browser.newContext({ viewport: { width: opts.width ?? 1280, height: 900 }, colorScheme: opts.dark ? 'dark' : 'light', baseURL: t.url });
}

beforeAll(async () => {
  t = await startTestServer();
  // Two runs of the same suite: the second one has a previous run to compare with, a trend and a history.
  await reportRealRun();
  runLink = await reportRealRun();
  browser = await chromium.launch({ executablePath: '/usr/bin/chromium' });
  mkdirSync(shots, { recursive: true });
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await t?.close();
  rmSync(tmp, { recursive: true, force: true });
});

describe('dashboard in Chromium, filled by a real reporter run', () => {
  let ctx: BrowserContext;
  let page: Page;

  beforeAll(async () => {
    ctx = await context();
    page = await ctx.newPage();
  });
  afterAll(() => ctx?.close());

  it('opens the reporter link signed out: sign-in first, then that very run', { timeout: 60_000 }, async () => {
    await page.goto(runLink);
    await expect.poll(() => new URL(page.url()).pathname, POLL).toBe('/');
    await page.screenshot({ path: join(shots, 'sign-in.png') });
    await signIn(page);
    await page.waitForURL(runLink);
    await page.getByRole('heading', { name: /fixture run/ }).waitFor();
  });

  it('shows the run: failures grouped by error, new failures, flaky, the suite tree', { timeout: 60_000 }, async () => {
    const html = await page.content();
    expect(html).toContain('Failures by error (2)');
    expect(await page.locator('details.group summary').allTextContents()).toEqual(
      expect.arrayContaining([expect.stringContaining('toBe(expected)'), expect.stringContaining('toHaveCount')]),
    );
    // The same two tests failed in the previous run: nothing new, nothing fixed, two still failing.
    expect(html).toContain('Compared with');
    expect(html).toContain('New failures (0)');
    expect(html).toContain('Fixed (0)');
    expect(html).toContain('Still failing: 2.');
    expect(await page.locator('h2', { hasText: 'Flaky in this run' }).textContent()).toBe('Flaky in this run (1)');
    await expect.poll(() => page.locator('.tree .file').allTextContents(), POLL).toEqual(['basic.spec.ts', 'browser.spec.ts']);
    await page.screenshot({ path: join(shots, 'run.png'), fullPage: true });

    await page.getByLabel('Status').selectOption('failed');
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.waitForURL(/status=failed/);
    expect(await page.locator('.tree li a').allTextContents()).toEqual(['fails with a diff', 'finds a missing button']);
  });

  it('shows the failing browser test with its screenshot, playable video, steps and history', { timeout: 60_000 }, async () => {
    await page.locator('.tree a', { hasText: 'finds a missing button' }).click();
    await page.getByRole('heading', { name: /finds a missing button/ }).waitFor();
    const img = page.locator('.shots img').first();
    await expect.poll(() => img.evaluate((el) => (el as unknown as { complete: boolean; naturalWidth: number }).complete && (el as unknown as { naturalWidth: number }).naturalWidth), POLL).toBeGreaterThan(0);
    // The video loads its metadata through Range requests on the signed URL.
    const video = page.locator('video').first();
    await expect.poll(() => video.evaluate((el) => (el as unknown as { readyState: number }).readyState), POLL).toBeGreaterThanOrEqual(1);
    expect(await page.locator('.step-failed .title').first().textContent()).toContain('toHaveCount');
    expect(await page.locator('.strip a').count()).toBe(2);
    expect(await page.locator('.strip a.current').getAttribute('class')).toBe('s-failed current');
    await page.screenshot({ path: join(shots, 'test.png'), fullPage: true });
  });

  it('opens the trace in the viewer served by this server, showing its actions', { timeout: 90_000 }, async () => {
    const link = page.getByRole('link', { name: 'Open trace' }).first();
    expect(await link.getAttribute('href')).toMatch(/^\/trace\/index\.html\?trace=http%3A%2F%2F.*%26token%3D/);
    const viewerErrors: string[] = [];
    ctx.on('console', (m) => m.type() === 'error' && viewerErrors.push(m.text()));
    const [viewer] = await Promise.all([ctx.waitForEvent('page'), link.click()]);
    expect(new URL(viewer.url()).origin).toBe(t.url);
    await viewer.getByText('Set content', { exact: false }).first().waitFor({ timeout: 60_000 });
    await viewer.getByText('toHaveCount', { exact: false }).first().waitFor();
    await viewer.screenshot({ path: join(shots, 'trace.png') });
    expect(viewerErrors.filter((e) => /Content Security Policy/i.test(e))).toEqual([]);
    await viewer.close();
  });

  it('lists runs with the trend, and quarantines a flaky test', { timeout: 60_000 }, async () => {
    await page.getByRole('link', { name: 'Runs' }).click();
    await page.getByRole('heading', { name: 'Runs' }).waitFor();
    expect(await page.locator('tbody tr').count()).toBe(2);
    expect(await page.locator('tbody tr').first().textContent()).toContain('fixture run');
    expect(await page.locator('svg.chart circle').count()).toBe(2);
    await page.screenshot({ path: join(shots, 'runs.png') });

    await page.getByRole('link', { name: 'Flaky tests' }).click();
    await page.getByRole('button', { name: 'Quarantine is flaky' }).click();
    await page.getByRole('button', { name: 'Release is flaky' }).waitFor();
    await page.screenshot({ path: join(shots, 'flaky.png') });
  });

  it('answers unknown pages with an HTML 404 page', async () => {
    const res = await page.goto('/runs/00000000-0000-7000-8000-000000000000');
    expect(res!.status()).toBe(404);
    await page.getByRole('heading', { name: 'Page not found' }).waitFor();
  });

  it('updates a running run in place when it finishes, without reloading the page', { timeout: 60_000 }, async () => {
    const run = await t.api('POST', '/runs', { auth: t.apiKey, body: { projectId: t.projectId, status: 'running', runTitle: 'live one' } });
    await page.goto(`/projects/${t.projectId}/runs`);
    const row = page.locator('tbody tr', { hasText: 'live one' });
    await row.locator('.badge', { hasText: 'running' }).waitFor();
    await page.evaluate(() => ((globalThis as any).stillTheSamePage = true));
    await t.api('PATCH', `/runs/${run.body.id}`, { auth: t.apiKey, body: { status: 'passed' } });
    await row.locator('.badge', { hasText: 'passed' }).waitFor({ timeout: 30_000 });
    expect(await page.evaluate(() => (globalThis as any).stillTheSamePage)).toBe(true);
  });

  it('signs out: the run link leads to sign-in again', async () => {
    await page.goto(runLink);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.goto(runLink);
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
  });
});

describe('narrow and dark', () => {
  it('stays usable at 390 px in dark mode', { timeout: 60_000 }, async () => {
    const ctx = await context({ width: 390, dark: true });
    const page = await ctx.newPage();
    await page.goto(runLink);
    await signIn(page);
    await page.waitForURL(runLink);
    const bg = await page.locator('body').evaluate((el) => (globalThis as any).getComputedStyle(el).backgroundColor);
    expect(bg).toBe('rgb(13, 17, 23)');
    // Nothing wider than the screen but the tables, which scroll in their own box.
    expect(await page.locator('html').evaluate((el) => (el as unknown as { scrollWidth: number }).scrollWidth)).toBeLessThanOrEqual(390);
    await page.screenshot({ path: join(shots, 'run-dark-390.png'), fullPage: true });
    await page.getByRole('link', { name: 'Runs' }).click();
    await page.screenshot({ path: join(shots, 'runs-dark-390.png') });
    await ctx.close();
  });
});

describe('password reset from the sign-in page', () => {
  it('sends the mail, sets a new password on the mailed page, and signs in with it', { timeout: 60_000 }, async () => {
    const user = await t.createUser();
    const ctx = await context();
    const page = await ctx.newPage();
    await page.goto('/');
    await page.getByRole('link', { name: 'Forgot your password?' }).click();
    await page.getByLabel('Email').fill(user.email);
    await page.getByRole('button', { name: 'Send reset link' }).click();
    await page.getByRole('status').waitFor();
    const link = tokenFrom(await waitForMail(t.dataDir, user.email, /reset/i), 'reset-password');
    await page.goto(link.url);
    // The token leaves the address bar at once.
    await expect.poll(() => page.url(), POLL).toBe(`${t.url}/reset-password`);
    await page.getByLabel('New password').fill('a fresh password 42');
    await page.getByRole('button', { name: 'Set password' }).click();
    await expect.poll(() => page.locator('#status').getAttribute('class'), POLL).toBe('notice');
    await page.getByRole('link', { name: 'Go to the dashboard' }).click();
    await page.getByLabel('Email').fill(user.email);
    await page.getByLabel('Password').fill('a fresh password 42');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'No project yet' }).waitFor();
    await ctx.close();
  });
});
