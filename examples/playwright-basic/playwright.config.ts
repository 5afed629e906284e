import { defineConfig } from '@playwright/test';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { chromiumPath } from '../../test/setup/chromium.mjs';

const appPort = Number(process.env.APP_PORT ?? 3123);

// In your own project this is just '@testreport/reporter'. Inside this repository the example
// uses the reporter built from packages/reporter (npm run build), so it runs without installing.
const builtReporter = fileURLToPath(new URL('../../packages/reporter/dist/index.js', import.meta.url));
const testreportReporter = existsSync(builtReporter) ? builtReporter : '@testreport/reporter';

export default defineConfig({
  testDir: './tests',
  fullyParallel: true,
  workers: 2,
  // CI gets two retries; one is enough locally to tell a flaky test from a broken one.
  retries: process.env.CI ? 2 : 1,
  expect: { timeout: 3_000 },
  outputDir: './test-results',
  reporter: [
    ['list'],
    [
      testreportReporter,
      {
        // apiKey, url and projectId fall back to TESTREPORT_API_KEY, TESTREPORT_URL and
        // TESTREPORT_PROJECT_ID; keep the key in a CI secret, never in this file.
        runTitle: process.env.RUN_TITLE ?? 'playwright-basic example',
        tags: ['example', 'tasks-app'],
        // Screenshots and traces of failed attempts ('all' | 'failures' | 'none').
        uploadArtifacts: 'failures',
        // Without TESTREPORT_API_KEY (e.g. a contributor's laptop) the reporter stays out of the way.
        enabled: Boolean(process.env.TESTREPORT_API_KEY),
      },
    ],
  ],
  use: {
    baseURL: `http://127.0.0.1:${appPort}`,
    screenshot: 'only-on-failure',
    trace: 'retain-on-failure',
    launchOptions: {
      // The repository's one Chromium lookup: CHROMIUM_PATH, Debian's /usr/bin/chromium, or the
      // browser of `npx playwright install chromium`. In your own project drop launchOptions
      // and Playwright uses the browser it installed.
      executablePath: chromiumPath(),
    },
  },
  webServer: {
    command: 'node app/server.mjs',
    url: `http://127.0.0.1:${appPort}/api/tasks`,
    env: { APP_PORT: String(appPort) },
    // A fresh app process per run: the weekly report starts with a cold cache every time.
    reuseExistingServer: false,
    timeout: 15_000,
  },
});
