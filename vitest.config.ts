import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { configDefaults, defineConfig } from 'vitest/config';

const src = (p: string) => fileURLToPath(new URL(p, import.meta.url));

const ALL = ['packages/*/src/**/*.test.ts', 'test/**/*.test.ts'];
/** Suites that need a fresh module graph per file (see `projects` below). */
const ISOLATED = ['packages/client/src/**/*.test.ts', 'test/outages/**/*.test.ts'];

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
    // Stops at once, naming what to install, when there is no Chromium for the browser tests.
    globalSetup: ['test/setup/global.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Vitest's default is one worker fewer than the cores: a single worker on the 2-core CI machine,
    // which left a core idle while a test waited on a server, Chromium or PostgreSQL (the SQLite pass
    // took 723 s with one worker, 471 s with two). A third worker did not help once the files shared
    // processes (457 s against 453 s): both cores were busy.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    env: { TESTREPORT_LOG: 'silent' },
    // Two projects that differ only in isolation. Most files start a real server: with a fresh module
    // graph per file (vitest's default) each paid ~1 s importing the server and ~1 s compiling the
    // openapi.json validators of the harness's response check before its first test, about a third
    // of the CPU of the SQLite pass on the 2-core CI machine. They share nothing but what is made once
    // per process (modules, compiled validators), so `shared` runs its files one after another in
    // the same worker process (isolate: false). `isolated` keeps a fresh module graph per file for
    // the suites that patch globals: msw's fetch interceptor (the client's tests, which fail when
    // they share a process) and the outage suites, which restart PostgreSQL and stop Swift.
    projects: [
      { extends: true, test: { name: 'isolated', include: ISOLATED, isolate: true } },
      { extends: true, test: { name: 'shared', include: ALL, exclude: [...configDefaults.exclude, ...ISOLATED], isolate: false } },
    ],
  },
});
