import { defineConfig, type Options } from 'tsup';

// Workspace packages are real dependencies at runtime. tsconfig paths point them at sources (so
// type builds see them), which would make esbuild inline them; resolve them as external first.
const workspaceExternal = {
  name: 'workspace-external',
  setup(build: { onResolve: (o: { filter: RegExp }, cb: (a: { path: string }) => { path: string; external: boolean }) => void }) {
    build.onResolve({ filter: /^@testreport\// }, (args) => ({ path: args.path, external: true }));
  },
};

// One build for the whole monorepo. The contract and client build first (others import their dist at runtime);
// only the packages users import from TypeScript get declaration files.
const common: Options = {
  format: ['esm'],
  target: 'node20',
  platform: 'node',
  sourcemap: true,
  clean: true,
  splitting: false,
  tsconfig: 'tsconfig.build.json',
  // Dependencies stay in node_modules; each package lists its own.
  skipNodeModulesBundle: true,
};

const configs: Options[] = [
  {
    ...common,
    name: 'contract',
    // `core` is the zod-free part (limits, text helpers, key format, artifact rules, routes).
    entry: { index: 'packages/contract/src/index.ts', core: 'packages/contract/src/core.ts' },
    splitting: true,
    outDir: 'packages/contract/dist',
    dts: true,
  },
  {
    ...common,
    name: 'client',
    // `core` is the SDK without the contract's schemas; one chunk holds what both share (one ApiError class).
    entry: { index: 'packages/client/src/index.ts', core: 'packages/client/src/core.ts' },
    splitting: true,
    outDir: 'packages/client/dist',
    esbuildPlugins: [workspaceExternal],
    external: ['@testreport/contract'],
    dts: true,
  },
  {
    ...common,
    name: 'server',
    // serveThread: what bin/reporter-server.js needs to start `serve` in its thread before loading bin.
    entry: { index: 'packages/server/src/index.ts', bin: 'packages/server/src/bin.ts', serveThread: 'packages/server/src/serveThread.ts', testing: 'packages/server/src/testing/index.ts', maintenance: 'packages/server/src/maintenance/index.ts' },
    outDir: 'packages/server/dist',
    esbuildPlugins: [workspaceExternal],
    external: ['@testreport/contract'],
    // kysely's ESM build is ~970 files, each read and compiled at every server start (0.3–0.4 s of a
    // 0.9 s start); bundled it is one parse. Nothing outside the server hands it kysely objects.
    noExternal: ['kysely'],
  },
  {
    ...common,
    name: 'reporter',
    // Playwright loads `index`, which stays light: the session (SDK, contract) is a chunk it imports
    // at onBegin, and the delivery engine for `reporter upload` is its own entry.
    entry: { index: 'packages/reporter/src/index.ts', delivery: 'packages/reporter/src/delivery/index.ts' },
    splitting: true,
    outDir: 'packages/reporter/dist',
    esbuildPlugins: [workspaceExternal],
    external: ['@testreport/client', '@testreport/contract', '@playwright/test'],
    dts: true,
  },
  {
    ...common,
    name: 'cli',
    entry: { bin: 'packages/cli/src/bin.ts' },
    outDir: 'packages/cli/dist',
    esbuildPlugins: [workspaceExternal],
    external: ['@testreport/client', '@testreport/contract', '@testreport/reporter'],
  },
];

// TSUP_ONLY=contract,server builds just those packages and no declaration files: all the container
// image's build stage needs (Containerfile), at a fraction of the time.
const only = process.env.TSUP_ONLY?.split(',');
export default defineConfig(only ? configs.filter((c) => only.includes(c.name ?? '')).map((c) => ({ ...c, dts: false })) : configs);
