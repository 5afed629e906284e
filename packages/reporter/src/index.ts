import { TestReportReporter } from './reporter.js';

// Playwright loads the default export; the CLI and programmatic users take the named ones.
export default TestReportReporter;
export { TestReportReporter };
export { detectCi, detectCiNode, detectGit, type CiMetadata, type CiNode, type DetectCiOptions } from './ci.js';
export { shardOf, withBuildIdentity, type BuildOverrides } from './ciBuild.js';
export { replaySpool, SPOOL_VERSION, type ReplayProgress, type ReplayResult, type SpoolRecord } from './spool.js';
export { resolveOptions, DEFAULT_OUTPUT_DIR, type ReporterOptions } from './options.js';
// The delivery engine, shared with `reporter upload` (none of it loads Playwright at runtime).
export { Delivery, isRefusal, type DeliveryOptions, type ArtifactOutcome } from './delivery/engine.js';
export { deliver, type Outgoing, type DeliveryReport, type Counts } from './delivery/deliver.js';
export { planArtifact, type AttachmentInput, type ArtifactPlan } from './delivery/artifacts.js';
export type { ArtifactJob, RecordKind, RunBody, TestBody } from './delivery/records.js';
export { appendStepSummary, appendStepSummaryText, STEP_SUMMARY_LIMIT, type StepSummaryOptions } from './stepSummary.js';
