import { TestReportReporter } from './reporter.js';

// Playwright loads the default export; the CLI and programmatic users take the named ones.
export default TestReportReporter;
export { TestReportReporter };
export { detectCi, detectGit, type CiMetadata, type DetectCiOptions } from './ci.js';
export { replaySpool, SPOOL_VERSION, type ReplayProgress, type ReplayResult, type SpoolRecord } from './spool.js';
export { resolveOptions, DEFAULT_OUTPUT_DIR, type ReporterOptions } from './options.js';
