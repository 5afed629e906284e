import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const src = (p: string) => fileURLToPath(new URL(p, import.meta.url));

export default defineConfig({
  resolve: {
    // Tests run against sources; the end-to-end tests that spawn binaries use the built dist.
    alias: [
      { find: /^@testreport\/contract$/, replacement: src('./packages/contract/src/index.ts') },
      { find: /^@testreport\/contract\/core$/, replacement: src('./packages/contract/src/core.ts') },
      { find: /^@testreport\/client\/core$/, replacement: src('./packages/client/src/core.ts') },
      { find: /^@testreport\/client$/, replacement: src('./packages/client/src/index.ts') },
      { find: /^@testreport\/server\/testing$/, replacement: src('./packages/server/src/testing/index.ts') },
      { find: /^@testreport\/server$/, replacement: src('./packages/server/src/index.ts') },
    ],
  },
  test: {
    include: ['packages/*/src/**/*.test.ts', 'test/**/*.test.ts'],
    // Stops at once, naming what to install, when there is no Chromium for the browser tests.
    globalSetup: ['test/setup/global.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Vitest's default is one worker fewer than the cores: a single worker on the 2-core CI machine,
    // which left a core idle while a test waited on a server, Chromium or PostgreSQL (the SQLite pass
    // took 723 s with one worker, 471 s with two).
    maxWorkers: Math.max(2, availableParallelism() - 1),
    env: { TESTREPORT_LOG: 'silent' },
  },
});
