import { defineConfig } from '@playwright/test';

// What a team writes in its own project once the tarballs (or, later, the registry packages) are installed.
export default defineConfig({
  testDir: './tests',
  retries: 1,
  reporter: [
    ['list'],
    // For `npx reporter upload report.json`, the way a CI job without the live reporter reports.
    ['json', { outputFile: 'report.json' }],
    // URL and key come from TESTREPORT_URL and TESTREPORT_API_KEY.
    ['@testreport/reporter', { runTitle: 'outside project', uploadArtifacts: 'all' }],
  ],
  // Only because the test machine uses the repository's Chromium lookup; a project that ran
  // `npx playwright install chromium` leaves launchOptions out.
  use: { launchOptions: { executablePath: process.env.CHROMIUM_PATH } },
});
