import { expect, test } from '@playwright/test';

// Genuinely flaky. The app builds the weekly report on its first request with a random 500–1500 ms
// delay (a cold cache) and serves it from memory afterwards; the report page gives up after 750 ms.
// So the first attempt in a run fails about three times in four ("The report is taking too long")
// and the retry, with the cache warm, passes: Playwright marks the test flaky, and testreport's
// flakiness score for it rises run after run. The webServer starts a fresh app for every run, so
// every run begins cold.
test('shows the weekly report', { tag: '@report' }, async ({ page }) => {
  await test.step('open the report', async () => {
    await page.goto('/report');
  });
  await test.step('the summary is ready', async () => {
    await expect(page.locator('#summary')).toHaveText(/\d+ open, \d+ done/);
  });
});
