// Test support for code that runs a real server: `@testreport/server/testing` (the way Hono ships
// `hono/testing`). Nothing in the server's production modules imports from here.
export * from './harness.js';
export * from './results.js';
export * from './artifacts.js';
export * from './outbox.js';
export * from './receiver.js';
export * from './swift.js';
export * from './database.js';
export * from './privatePostgres.js';
export * from './responseCheck.js';
