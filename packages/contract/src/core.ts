// The contract without its schemas: limits, text caps and helpers, the API key format, the session
// cookie, the artifact rules, the routes and the enumerations the schemas build on. Nothing here
// imports zod, so a client that only calls the API (the Playwright reporter in Playwright's own
// process, the `reporter` binary) loads a few small modules instead of zod and every schema
// (≈ 100 ms of CPU at start, docs/benchmarks.md); packages/reporter/src/lightImports.test.ts and
// packages/cli/src/lightImports.test.ts hold them to that.
export * from './limits.js';
export * from './text.js';
export * from './apiKeyFormat.js';
export * from './cookies.js';
export * from './artifactRules.js';
export * from './routes.js';
export * from './values.js';
