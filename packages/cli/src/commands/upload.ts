import type { RunCreate } from '@testreport/contract';
import { replaySpool, type ReplayResult } from '@testreport/reporter';
import type { Command } from 'commander';
import { UsageError } from '../lib/errors.js';
import { command } from '../lib/action.js';
import type { Context } from '../lib/context.js';
import type { Output } from '../lib/output.js';
import { resolveInputs, type ReportInputs } from '../report/inputs.js';
import { uploadReport, type UploadOutcome } from '../upload/engine.js';
import { hashInputs } from '../upload/hash.js';
import { canAnimate, formatBytes, ProgressView } from '../upload/progress.js';
import { runBody, type RunFlags } from '../upload/runBody.js';
import { scanReport } from '../upload/scan.js';
import { stepSummaryAfterUpload } from './summary.js';

export interface UploadFlags extends RunFlags {
  dryRun?: boolean;
  concurrency?: string;
  /** Append the run's summary to $GITHUB_STEP_SUMMARY after sending (commands/summary.ts). */
  summary?: boolean;
}

export interface UploadInput {
  path: string;
  flags: UploadFlags;
}

type Listed = Array<{ reason: string; detail: string }>;

/** What `upload` returns (and prints as is with --json). */
export type UploadResult =
  | { dryRun: true; kind: 'spool'; files: string[] }
  | {
      dryRun: true;
      kind: 'playwright' | 'junit';
      files: string[];
      bytes: number;
      run: RunCreate & Record<string, unknown>;
      suites: number;
      batches: number;
      attachments: { total: number; uploadable: number; bytes: number; notUploadable: Listed };
    }
  /** `runUrl` is the run in the API; `webUrl` the dashboard page people open. */
  | { kind: 'spool'; results: Array<ReplayResult & { file: string; runUrl: string; webUrl: string }> }
  | (UploadOutcome & { runUrl: string; webUrl: string; attachmentsTotal: number });

/**
 * An upload may send hundreds of suites and batches into a per-minute rate limit (tests write: 60);
 * it waits out 429s (Retry-After) instead of failing after the SDK's default one-minute budget.
 */
const UPLOAD_PATIENCE = { maxRetries: 10, retryBudgetMs: 15 * 60_000 };

function concurrencyOf(flags: UploadFlags): number {
  const n = Number(flags.concurrency ?? 4);
  if (!Number.isInteger(n) || n < 1 || n > 16) throw new UsageError(`--concurrency must be a whole number from 1 to 16, got ${flags.concurrency}`);
  return n;
}

function describeInputs(inputs: ReportInputs): string {
  const what = inputs.kind === 'playwright' ? 'Playwright JSON report' : inputs.kind === 'junit' ? 'JUnit XML file' : 'spool file';
  return `${inputs.files.length} ${what}${inputs.files.length === 1 ? '' : 's'}`;
}

const links = (client: { baseUrl: string; appUrl: string }, runId: string) => ({ runUrl: `${client.baseUrl}/runs/${runId}`, webUrl: `${client.appUrl}/runs/${runId}` });

async function replay(ctx: Context, inputs: ReportInputs, summary: boolean): Promise<UploadResult> {
  const client = ctx.client('any', UPLOAD_PATIENCE);
  const results = [];
  const view = await ProgressView.open(!ctx.out.json && canAnimate(), 'Replaying spool');
  try {
    for (const file of inputs.files) {
      const r = await replaySpool(file, client, { onProgress: (p) => (view.text = `Replaying ${file}: ${p.phase} ${p.done} / ${p.total}`) });
      results.push({ file, ...r, ...links(client, r.runId) });
      if (summary) await stepSummaryAfterUpload(ctx, client, r.runId);
    }
  } finally {
    view.stop();
  }
  return { kind: 'spool', results };
}

/**
 * `reporter upload <path>`: a Playwright JSON report or JUnit XML as one run (checked whole before
 * anything is sent), or reporter spool files replayed; with --dry-run, what would be sent.
 */
export async function upload(ctx: Context, input: UploadInput): Promise<UploadResult> {
  const { flags } = input;
  const concurrency = concurrencyOf(flags);
  const inputs = await resolveInputs(input.path);
  if (inputs.kind === 'spool') return flags.dryRun ? { dryRun: true, kind: 'spool', files: inputs.files } : replay(ctx, inputs, Boolean(flags.summary));

  const view = await ProgressView.open(!ctx.out.json && canAnimate(), `Reading ${describeInputs(inputs)}`);
  try {
    const hash = await hashInputs(inputs);
    const scan = await scanReport(inputs);
    if (flags.dryRun) {
      const body = runBody(ctx.config.settings.projectId?.value ?? '<the API key’s project>', inputs.kind, scan, flags, ctx.env);
      return {
        dryRun: true,
        kind: inputs.kind,
        files: inputs.files,
        bytes: hash.bytes,
        run: { ...body, ...scan.tally.counts(), status: scan.tally.status },
        suites: scan.suites,
        batches: Math.ceil(scan.tally.totalTests / 500),
        attachments: { total: scan.attachments.total, uploadable: scan.attachments.uploadable, bytes: scan.attachments.bytes, notUploadable: scan.attachments.skipped },
      };
    }
    const client = ctx.client('any', UPLOAD_PATIENCE);
    const projectId = await ctx.projectId(client);
    await client.verify({ projectId });
    const outcome = await uploadReport({
      client,
      inputs,
      scan,
      reportHash: hash.hash,
      run: runBody(projectId, inputs.kind, scan, flags, ctx.env),
      concurrency,
      onProgress: (p) => view.upload(p),
    });
    view.stop();
    if (flags.summary) await stepSummaryAfterUpload(ctx, client, outcome.runId);
    return { ...outcome, ...links(client, outcome.runId), attachmentsTotal: scan.attachments.total };
  } finally {
    view.stop();
  }
}

/**
 * Missing or oversized files are worth a line each; attachments of a kind the server does not store
 * (binary files other than screenshots, videos and traces) are summed up in one line. Text
 * attachments (Playwright's error-context.md, logs) are not among them: they go inline with their try.
 */
function warnAttachments(out: Output, list: Listed, verb: string): void {
  const unsupported = list.filter((a) => a.reason === 'unsupported');
  const rest = list.filter((a) => a.reason !== 'unsupported');
  for (const a of rest.slice(0, 50)) out.warn(`attachment ${verb} (${a.reason === 'missing' ? 'file not found' : a.reason}): ${a.detail}`);
  if (rest.length > 50) out.warn(`… and ${rest.length - 50} more attachments ${verb}`);
  if (unsupported.length) out.note(`${unsupported.length} attachment${unsupported.length === 1 ? '' : 's'} skipped: not a screenshot, video or trace (e.g. ${unsupported[0].detail})`);
}

export function printUpload(out: Output, r: UploadResult): void {
  if ('dryRun' in r) {
    if (r.kind === 'spool') return out.line(`Dry run: would replay ${r.files.length} spool file${r.files.length === 1 ? '' : 's'}:\n  ${r.files.join('\n  ')}`);
    const what = r.kind === 'playwright' ? 'Playwright JSON report' : 'JUnit XML file';
    out.line(`Dry run (nothing was sent): ${r.files.length} ${what}${r.files.length === 1 ? '' : 's'}, ${formatBytes(r.bytes)}`);
    const run = r.run as RunCreate & { totalTests: number; passedTests: number; failedTests: number; flakyTests: number; skippedTests: number };
    out.fields([
      ['tests', `${run.totalTests} (${run.passedTests} passed, ${run.failedTests} failed, ${run.flakyTests} flaky, ${run.skippedTests} skipped)`],
      ['run status', run.status],
      ['suites', r.suites],
      ['test batches', r.batches],
      ['attachments', `${r.attachments.uploadable} of ${r.attachments.total} uploadable (${formatBytes(r.attachments.bytes)})`],
      ['branch', run.branch],
      ['commit', run.commitSha],
      ['ci', run.ciProvider],
      ['build', run.ciBuildId ? [run.ciBuildId, run.group].filter(Boolean).join(' · ') : undefined],
      ['shard', run.shardCurrent ? `${run.shardCurrent}/${run.shardTotal}` : undefined],
      ['title', run.runTitle],
      ['tags', run.tags],
    ]);
    return warnAttachments(out, r.attachments.notUploadable, 'would not be uploaded');
  }
  if ('results' in r) {
    for (const x of r.results) {
      out.success(`Replayed ${x.file} into run ${x.runId}: sent ${x.sent.tests} tests, ${x.sent.artifacts} artifacts; ${x.skipped.tests + x.skipped.artifacts} records were already delivered`);
      out.line(`  run: ${x.webUrl}`);
      for (const f of x.failedArtifacts) out.warn(`artifact not uploaded: ${f.fileName} (${f.reason})`);
    }
    return;
  }
  const c = r.counts;
  out.line(`${r.status === 'failed' ? out.c.red('✗') : out.c.green('✓')} Uploaded ${c.totalTests} tests to run ${r.runId} (${out.status(r.status)})`);
  out.line(
    `  ${out.c.green(`${c.passedTests} passed`)}, ${out.c.red(`${c.failedTests} failed`)}, ${out.c.yellow(`${c.flakyTests} flaky`)}, ${out.c.dim(`${c.skippedTests} skipped`)}` +
      ` · ${r.suites} suites · ${(r.duration / 1000).toFixed(1)}s`,
  );
  if (r.attachmentsTotal > 0) out.line(`  attachments: ${r.artifacts.uploaded} uploaded (${formatBytes(r.artifacts.bytes)}), ${r.artifacts.notUploaded.length} not uploaded`);
  out.line(`  run: ${r.webUrl}`);
  warnAttachments(out, r.artifacts.notUploaded, 'not uploaded');
}

export function registerUpload(program: Command): void {
  program
    .command('upload')
    .summary('upload a Playwright JSON report, JUnit XML files or reporter spool files')
    .description(
      'Upload test results as one run: a Playwright JSON report (a file, or a folder holding one), JUnit XML from any\n' +
        'framework (a file, or a folder searched recursively for *.xml), or spool files (*.ndjson) the Playwright\n' +
        'reporter wrote when the server was unreachable. CI metadata (provider, build, branch, commit) is detected,\n' +
        'and the report of one shard or parallel job joins the one run of its CI build (docs/ci-builds.md).\n' +
        'Uploading the same report again creates nothing twice. The whole report is checked before anything is sent:\n' +
        'a malformed report exits 2 and creates nothing.',
    )
    .argument('<path>', 'report file or folder')
    .option('--dry-run', 'parse and show what would be sent; create nothing')
    .option('--run-title <title>', 'title of the run')
    .option('--tags <list>', 'comma-separated run tags, e.g. nightly,smoke')
    .option('--branch <name>', 'branch (overrides the detected one)')
    .option('--commit <sha>', 'commit SHA (overrides the detected one)')
    .option('--shard <i/n>', 'this report is shard i of n (JUnit; a Playwright JSON report says its own; default: the CI\'s parallel slot, e.g. CI_NODE_INDEX/CI_NODE_TOTAL)')
    .option('--build-id <id>', 'join the run of this CI build (TESTREPORT_BUILD_ID; default: the CI\'s build id, e.g. GITHUB_RUN_ID)')
    .option('--group <name>', 'keep this job\'s run apart from other jobs of the build (TESTREPORT_GROUP; default: the CI job name)')
    .option('--root-dir <dir>', 'where the report\'s file paths start (Playwright\'s rootDir; default: the current directory): with the repository\'s CODEOWNERS, each test gets its owners')
    .option('--concurrency <n>', 'test batches in flight at once (1-16)', '4')
    .option('--summary', 'on GitHub Actions, append the run summary (new failures, fixed, flaky) to the job summary')
    .addHelpText(
      'after',
      `
Examples:
  $ reporter upload playwright-report/results.json
  $ reporter upload ./test-results --run-title "nightly" --tags nightly,linux
  $ reporter upload build/test-results/test --branch main --commit $GIT_SHA
  $ reporter upload testreport-spool/                # replay what the reporter spooled
  $ reporter upload results.xml --dry-run --json     # what would be sent, as JSON
  $ reporter upload shard-2.json                      # a shard's report joins its CI build's run
  $ reporter upload junit.xml --shard 2/3 --build-id "$PIPELINE_ID"
  $ reporter upload playwright-report/results.json --summary   # and the GitHub job summary

Exit codes: 0 uploaded (failed tests are not an error), 1 the server or the upload failed,
2 bad flags, missing credentials or a malformed report.`,
    )
    .action(command({ input: ([path], flags: UploadFlags) => ({ path: path!, flags }), run: upload, print: printUpload }));
}
