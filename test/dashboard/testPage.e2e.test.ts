import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { ROOT, useBuiltServer } from '../cli/helpers.js';
import { runDebugSuite } from '../reporter/debugRun.js';

// The test page of issue 24 in Chromium, filled by a real run of test/reporter/fixtures/debug.config.ts
// through the built reporter: a tab per try, snippets, the comparison viewer, the page snapshot, Copy prompt.
const POLL = { timeout: 15_000 };
const setup = useBuiltServer('testpage-');
// TESTREPORT_SCREENSHOTS=docs/img refreshes the pictures docs/dashboard.md shows.
const shotsDir = () => (process.env.TESTREPORT_SCREENSHOTS ? resolve(ROOT, process.env.TESTREPORT_SCREENSHOTS) : join(setup.dir(), 'shots'));

let browser: Browser;
let ctx: BrowserContext;
let page: Page;
let shots: string;
const testIds: Record<string, string> = {};

async function reportDebugRun(): Promise<string> {
  const run = await runDebugSuite(setup.dir(), { url: setup.server.url, apiKey: setup.server.apiKey });
  if (!run.runId) throw new Error(`the reporter printed no run link:\n${run.output}`);
  return run.runId;
}

const text = () => page.locator('main').innerText();

describe('test page in Chromium', () => {
  it('is filled by a real run and opened signed in', { timeout: 180_000 }, async () => {
    const runId = await reportDebugRun();
    const list = await setup.server.api('GET', `/tests?projectId=${setup.server.projectId}&runId=${runId}`, { auth: setup.server.apiKey });
    for (const t of list.body.data) testIds[t.title] = t.id;
    browser = await chromium.launch({ executablePath: '/usr/bin/chromium' });
    ctx = await browser.newContext({ viewport: { width: 1280, height: 900 }, baseURL: setup.server.url });
    await ctx.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: setup.server.url });
    page = await ctx.newPage();
    await page.goto('/');
    await page.getByLabel('Email').fill(setup.server.owner.email);
    await page.getByLabel('Password').fill(setup.server.owner.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => new URL(page.url()).pathname, POLL).not.toBe('/');
    shots = shotsDir();
    mkdirSync(shots, { recursive: true });
  });

  it('a flaky test: a tab per try, the failing one open, each try with its own error, snippet and stack', { timeout: 60_000 }, async () => {
    await page.goto(`/tests/${testIds['fails differently, then passes']}`);
    const tabs = page.getByRole('navigation', { name: 'Tries' }).getByRole('link');
    expect(await tabs.allInnerTexts()).toEqual([expect.stringContaining('Run'), expect.stringContaining('Retry #1'), expect.stringContaining('Retry #2')]);
    await expect.poll(() => page.locator('[aria-current=page]', { hasText: 'Retry #1' }).count(), POLL).toBe(1);
    expect(await text()).toContain('Error: second try broke');
    expect(await page.locator('pre.snippet .hl').innerText()).toContain("throw new Error('second try broke')");
    expect(await page.locator('main').innerHTML()).not.toContain('\u001b');
    expect(await text()).toContain('try 2 says hello');
    await page.screenshot({ path: join(shots, 'test-tries.png'), fullPage: true });
    // Keyboard: the first try's tab.
    await tabs.first().focus();
    await page.keyboard.press('Enter');
    await page.waitForURL(/retry=0/);
    expect(await page.locator('.err pre.s-failed').innerText()).toMatch(/^Error: first try/);
    expect(await page.locator('.err').count()).toBe(1);
    expect(await page.locator('pre.snippet .hl').innerText()).toContain("toBe(1)");
    expect(await text()).toMatch(/debug\.spec\.ts:9:\d+/);
  });

  it('soft assertions: both errors of the try, the attached text file inline', { timeout: 60_000 }, async () => {
    await page.goto(`/tests/${testIds['soft assertions']}`);
    expect(await page.getByRole('heading', { name: '2 errors' }).count()).toBe(1);
    expect(await page.locator('.err').count()).toBe(2);
    await page.locator('summary', { hasText: 'notes' }).click();
    expect(await text()).toContain('order 42');
    // The step after the soft assertions carries its file:line.
    expect(await text()).toMatch(/a step after the soft ones[\s\S]*debug\.spec\.ts:17/);
  });

  it('a screenshot mismatch: one comparison viewer with the five modes, usable by keyboard, and the page snapshot', { timeout: 60_000 }, async () => {
    await page.goto(`/tests/${testIds['screenshot mismatch']}`);
    const viewer = page.locator('.imgdiff');
    const modes = viewer.getByRole('group', { name: 'Comparison view' }).getByRole('button');
    expect(await modes.allInnerTexts()).toEqual(['Diff', 'Actual', 'Expected', 'Side by side', 'Slider']);
    expect(await viewer.locator('.imgdiff-view img').getAttribute('alt')).toBe('Diff');
    await modes.nth(3).focus();
    await page.keyboard.press('Enter');
    expect(await viewer.locator('.imgdiff-view img').evaluateAll((imgs) => imgs.map((i) => i.getAttribute('alt')))).toEqual(['Expected', 'Actual']);
    await modes.nth(4).focus();
    await page.keyboard.press('Space');
    const range = viewer.getByRole('slider');
    await range.focus();
    await page.keyboard.press('ArrowRight');
    expect(await range.inputValue()).toBe('51');
    expect(await viewer.locator('.imgdiff-top').evaluate((i) => (i as unknown as { style: { clipPath: string } }).style.clipPath)).toBe('inset(0px 49% 0px 0px)');
    // Every image of the viewer loaded (signed URLs of this server).
    await expect.poll(() => viewer.locator('.imgdiff-view img').evaluateAll((imgs) => imgs.every((i) => (i as unknown as { naturalWidth: number }).naturalWidth > 0)), POLL).toBe(true);
    expect(await page.locator('details[open] summary', { hasText: 'Page snapshot' }).count()).toBe(1);
    expect(await text()).toContain('heading "Cart"');
    await modes.first().click();
    await page.screenshot({ path: join(shots, 'test-image-diff.png'), fullPage: true });
  });

  it('a missing baseline shows the actual only', { timeout: 60_000 }, async () => {
    await page.goto(`/tests/${testIds['missing baseline']}`);
    const viewer = page.locator('.imgdiff');
    expect(await viewer.innerText()).toContain('no baseline existed: actual only');
    expect(await viewer.locator('img').evaluateAll((imgs) => imgs.map((i) => i.getAttribute('alt')))).toEqual(['Actual: never-committed-actual.png']);
    expect(await viewer.getByRole('button').count()).toBe(0);
  });

  it('Copy prompt copies the title, location, error with snippet, page snapshot and history line as Markdown', { timeout: 60_000 }, async () => {
    await page.goto(`/tests/${testIds['screenshot mismatch']}`);
    await page.getByRole('button', { name: 'Copy prompt' }).click();
    await expect.poll(() => page.getByRole('button', { name: 'Copied' }).count(), POLL).toBe(1);
    const prompt = await page.evaluate(() => (globalThis as unknown as { navigator: { clipboard: { readText(): Promise<string> } } }).navigator.clipboard.readText());
    expect(prompt).toMatch(/^# Fix the failing Playwright test "screenshot mismatch"/);
    expect(prompt).toContain('- Location: debug.spec.ts:22');
    expect(prompt).toContain('- History: failed in 1 of the last 1 run, first on');
    expect(prompt).toContain('toHaveScreenshot');
    expect(prompt).toMatch(/```\n.*> 25 \|/s);
    expect(prompt).toContain('## Page snapshot at the failure');
    expect(prompt).toContain('heading "Cart"');
    await ctx.close();
    await browser.close();
  });
});
