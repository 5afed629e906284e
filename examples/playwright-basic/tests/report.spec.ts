import { expect, test } from '@playwright/test';

// Genuinely flaky: the app builds the weekly report on first request with a random 500–1500 ms
// delay (a cold cache) and serves it from memory afterwards. This test gives the report 750 ms, so
// the first attempt of a run fails about three times in four and the retry (warm cache) passes:
// Playwright marks it "flaky", and testreport's flakiness score for it climbs across runs.
test('shows the weekly report', { tag: '@report' }, async ({ page }) => {
  await test.step('open the report', async () => {
    await page.goto('/report');
  });
  await test.step('the summary is ready', async () => {
    await expect(page.locator('#summary')).toHaveText(/\d+ open, \d+ done/, { timeout: 750 });
  });
});
