import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, describe, expect, it } from 'vitest';
import { useBuiltServer } from '../cli/helpers.js';
import { runDebugSuite } from '../reporter/debugRun.js';

// axe-core (WCAG 2.1 A and AA rules) over every first-party page, light and dark, at 1280 and 390 px,
// in Debian's Chromium: no serious or critical violation. The pages are filled by a real reporter run.
const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const setup = useBuiltServer('axe-');
let browser: Browser;

interface Violation { id: string; impact: string | null; help: string; nodes: { target: string[] }[] }

/** The serious and critical violations axe finds on the page now. CSP is bypassed only to inject axe itself. */
async function violations(page: Page): Promise<string[]> {
  await page.addScriptTag({ content: AXE });
  const found = (await page.evaluate(
    `axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] } }).then((r) => r.violations)`,
  )) as Violation[];
  return found
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} (${v.impact}): ${v.help} — ${v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join(', ')}`);
}

afterAll(async () => {
  await browser?.close();
});

describe('accessibility of every page (axe-core)', () => {
  it('no serious or critical violation on any page, light and dark, 1280 and 390 px', { timeout: 300_000 }, async () => {
    const run = await runDebugSuite(setup.dir(), { url: setup.server.url, apiKey: setup.server.apiKey });
    expect(run.runId, run.output).toBeTruthy();
    const { projectId } = setup.server;
    const tests = (await setup.server.api('GET', `/tests?projectId=${projectId}&runId=${run.runId}`, { auth: setup.server.apiKey })).body.data as Array<{ id: string; title: string }>;
    const testId = (title: string) => tests.find((t) => t.title === title)!.id;
    const groups = (await setup.server.api('GET', `/errors?projectId=${projectId}`, { auth: setup.server.apiKey })).body.data as Array<{ fingerprint: string }>;
    expect(groups.length).toBeGreaterThan(0);
    const signedOut = ['/', '/signup', '/forgot-password', '/verify-email', '/reset-password', '/accept-invitation'];
    const signedIn = [
      `/projects/${projectId}/runs`,
      `/runs/${run.runId}`,
      `/tests/${testId('fails differently, then passes')}`,
      `/tests/${testId('screenshot mismatch')}`,
      `/tests/${testId('missing baseline')}`,
      `/tests/${testId('soft assertions')}`,
      `/runs/${run.runId}/compare`,
      `/projects/${projectId}/flaky`,
      `/projects/${projectId}/errors`,
      `/projects/${projectId}/errors?days=7&q=Error`,
      `/projects/${projectId}/errors/${groups[0].fingerprint}`,
      `/projects/${projectId}/insights`,
      `/projects/${projectId}/search?q=soft`,
      `/projects/${projectId}/settings`,
      `/projects/${projectId}/settings/keys`,
      `/projects/${projectId}/settings/webhooks`,
      `/projects/${projectId}/settings/members`,
    ];
    browser = await chromium.launch({ executablePath: '/usr/bin/chromium' });
    const problems: string[] = [];
    for (const width of [1280, 390]) {
      for (const dark of [false, true]) {
        const ctx = await browser.newContext({ viewport: { width, height: 900 }, colorScheme: dark ? 'dark' : 'light', baseURL: setup.server.url, bypassCSP: true });
        const page = await ctx.newPage();
        const check = async (path: string) => {
          await page.goto(path);
          for (const v of await violations(page)) problems.push(`${path} ${width}px ${dark ? 'dark' : 'light'}: ${v}`);
        };
        for (const path of signedOut) await check(path);
        await page.goto('/');
        await page.getByLabel('Email').fill(setup.server.owner.email);
        await page.getByLabel('Password').fill(setup.server.owner.password);
        await page.getByRole('button', { name: 'Sign in' }).click();
        await page.waitForURL((u) => u.pathname !== '/');
        for (const path of signedIn) await check(path);
        await ctx.close();
      }
    }
    expect(problems).toEqual([]);
  });
});
