export { createApp, type TestReportApp } from './app.js';
export { startServer, type RunningServer } from './server.js';
export { resolveConfig, type ServerConfig, type ConfigInput } from './config.js';
