import { TestReportReporter } from './reporter.js';

// Playwright loads the default export; the CLI and programmatic users take the named ones. Everything
// this module loads at once is light (Node's own modules): the SDK and the contract load later (see
// reporter.ts), and the delivery engine is `@testreport/reporter/delivery`.
export default TestReportReporter;
export { TestReportReporter };
export { detectCi, detectCiNode, detectGit, type CiMetadata, type CiNode, type DetectCiOptions } from './ci.js';
export { shardOf, withBuildIdentity, type BuildOverrides } from './ciBuild.js';
export { codeownersFields, findRepoRoot, CODEOWNERS_PATHS } from './codeowners.js';
export { replaySpool, SPOOL_VERSION } from './replay.js';
export type { ReplayProgress, ReplayResult, SpoolRecord } from './spool.js';
export { resolveOptions, DEFAULT_OUTPUT_DIR, type ReporterOptions } from './options.js';
export type { DeliveryOptions, ArtifactOutcome, Outgoing, DeliveryReport, Counts, AttachmentInput, ArtifactPlan, ArtifactJob, RecordKind, RunBody, TestBody } from './delivery/index.js';
export { appendStepSummary, appendStepSummaryText, STEP_SUMMARY_LIMIT, type StepSummaryOptions } from './stepSummary.js';
