import type { RunCreate } from '@testreport/contract';
import { detectCi, replaySpool } from '@testreport/reporter';
import type { Command } from 'commander';
import { UsageError } from '../lib/errors.js';
import { action } from '../lib/action.js';
import type { Context } from '../lib/context.js';
import { resolveInputs, type ReportInputs } from '../report/inputs.js';
import { uploadReport, type UploadOutcome } from '../upload/engine.js';
import { hashInputs } from '../upload/hash.js';
import { canAnimate, formatBytes, ProgressView } from '../upload/progress.js';
import { scanReport, type ScanResult } from '../upload/scan.js';

interface UploadFlags {
  dryRun?: boolean;
  runTitle?: string;
  tags?: string;
  branch?: string;
  commit?: string;
  concurrency?: string;
}

function runBody(projectId: string, scan: ScanResult, flags: UploadFlags): RunCreate {
  const ci = detectCi(process.env);
  const tags = flags.tags?.split(',').map((t) => t.trim()).filter(Boolean);
  const body: RunCreate = { projectId, status: 'running', ...ci, ...scan.meta };
  delete (body as { duration?: number }).duration;
  if (flags.branch) body.branch = flags.branch;
  if (flags.commit) body.commitSha = flags.commit;
  if (flags.runTitle) body.runTitle = flags.runTitle;
  if (tags?.length) body.tags = tags;
  return body;
}

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

async function replay(ctx: Context, inputs: ReportInputs, flags: UploadFlags): Promise<void> {
  const { out } = ctx;
  if (flags.dryRun) {
    if (out.json) out.data({ dryRun: true, kind: 'spool', files: inputs.files });
    else out.line(`Dry run: would replay ${describeInputs(inputs)}:\n  ${inputs.files.join('\n  ')}`);
    return;
  }
  const client = ctx.client('any', UPLOAD_PATIENCE);
  const results = [];
  const view = new ProgressView(!out.json && canAnimate(), 'Replaying spool');
  try {
    for (const file of inputs.files) {
      const r = await replaySpool(file, client, { onProgress: (p) => (view.text = `Replaying ${file}: ${p.phase} ${p.done} / ${p.total}`) });
      results.push({ file, ...r });
    }
  } finally {
    view.stop();
  }
  if (out.json) return out.data({ kind: 'spool', results });
  for (const r of results) {
    out.success(`Replayed ${r.file} into run ${r.runId}: sent ${r.sent.tests} test batches, ${r.sent.artifacts} artifacts; ${r.skipped.tests + r.skipped.artifacts} records were already delivered`);
    for (const f of r.failedArtifacts) out.warn(`artifact not uploaded: ${f.fileName} (${f.reason})`);
  }
}

function printSummary(ctx: Context, o: UploadOutcome, scan: ScanResult, runUrl: string): void {
  const { out } = ctx;
  const c = o.counts;
  out.line(`${o.status === 'failed' ? out.c.red('✗') : out.c.green('✓')} Uploaded ${c.totalTests} tests to run ${o.runId} (${out.status(o.status)})`);
  out.line(
    `  ${out.c.green(`${c.passedTests} passed`)}, ${out.c.red(`${c.failedTests} failed`)}, ${out.c.yellow(`${c.flakyTests} flaky`)}, ${out.c.dim(`${c.skippedTests} skipped`)}` +
      ` · ${o.suites} suites · ${(o.duration / 1000).toFixed(1)}s`,
  );
  if (scan.attachments.total > 0) out.line(`  attachments: ${o.artifacts.uploaded} uploaded (${formatBytes(o.artifacts.bytes)}), ${o.artifacts.notUploaded.length} not uploaded`);
  out.line(`  run: ${runUrl}`);
  warnAttachments(ctx, o.artifacts.notUploaded, 'not uploaded');
}

/**
 * Missing or oversized files are worth a line each; attachments of a kind the server does not store
 * (Playwright's error-context.md, logs) are summed up in one line.
 */
function warnAttachments(ctx: Context, list: Array<{ reason: string; detail: string }>, verb: string): void {
  const unsupported = list.filter((a) => a.reason === 'unsupported');
  const rest = list.filter((a) => a.reason !== 'unsupported');
  for (const a of rest.slice(0, 50)) ctx.out.warn(`attachment ${verb} (${a.reason === 'missing' ? 'file not found' : a.reason}): ${a.detail}`);
  if (rest.length > 50) ctx.out.warn(`… and ${rest.length - 50} more attachments ${verb}`);
  if (unsupported.length) ctx.out.note(`${unsupported.length} attachment${unsupported.length === 1 ? '' : 's'} skipped: not a screenshot, video or trace (e.g. ${unsupported[0].detail})`);
}

export function registerUpload(program: Command): void {
  program
    .command('upload')
    .summary('upload a Playwright JSON report, JUnit XML files or reporter spool files')
    .description(
      'Upload test results as one run: a Playwright JSON report (a file, or a folder holding one), JUnit XML from any\n' +
        'framework (a file, or a folder searched recursively for *.xml), or spool files (*.ndjson) the Playwright\n' +
        'reporter wrote when the server was unreachable. CI metadata (provider, build, branch, commit) is detected.\n' +
        'Uploading the same report again creates nothing twice. The whole report is checked before anything is sent:\n' +
        'a malformed report exits 2 and creates nothing.',
    )
    .argument('<path>', 'report file or folder')
    .option('--dry-run', 'parse and show what would be sent; create nothing')
    .option('--run-title <title>', 'title of the run')
    .option('--tags <list>', 'comma-separated run tags, e.g. nightly,smoke')
    .option('--branch <name>', 'branch (overrides the detected one)')
    .option('--commit <sha>', 'commit SHA (overrides the detected one)')
    .option('--concurrency <n>', 'test batches in flight at once (1-16)', '4')
    .addHelpText(
      'after',
      `
Examples:
  $ reporter upload playwright-report/results.json
  $ reporter upload ./test-results --run-title "nightly" --tags nightly,linux
  $ reporter upload build/test-results/test --branch main --commit $GIT_SHA
  $ reporter upload testreport-spool/                # replay what the reporter spooled
  $ reporter upload results.xml --dry-run --json     # what would be sent, as JSON

Exit codes: 0 uploaded (failed tests are not an error), 1 the server or the upload failed,
2 bad flags, missing credentials or a malformed report.`,
    )
    .action(
      action(async (ctx, path: string, flags: UploadFlags) => {
        const { out } = ctx;
        const concurrency = concurrencyOf(flags);
        const inputs = await resolveInputs(path);
        if (inputs.kind === 'spool') return replay(ctx, inputs, flags);

        const view = new ProgressView(!out.json && canAnimate(), `Reading ${describeInputs(inputs)}`);
        let scan: ScanResult;
        let hash: { hash: string; bytes: number };
        try {
          hash = await hashInputs(inputs);
          scan = await scanReport(inputs);
        } catch (err) {
          view.stop();
          throw err;
        }

        if (flags.dryRun) {
          view.stop();
          const body = runBody(ctx.config.settings.projectId?.value ?? '<the API key’s project>', scan, flags);
          const summary = {
            dryRun: true,
            kind: inputs.kind,
            files: inputs.files,
            bytes: hash.bytes,
            run: { ...body, ...scan.tally.counts(), status: scan.tally.status },
            suites: scan.suites,
            batches: Math.ceil(scan.tally.totalTests / 500),
            attachments: { total: scan.attachments.total, uploadable: scan.attachments.uploadable, bytes: scan.attachments.bytes, notUploadable: scan.attachments.skipped },
          };
          if (out.json) return out.data(summary);
          const c = scan.tally.counts();
          out.line(`Dry run (nothing was sent): ${describeInputs(inputs)}, ${formatBytes(hash.bytes)}`);
          out.fields([
            ['tests', `${c.totalTests} (${c.passedTests} passed, ${c.failedTests} failed, ${c.flakyTests} flaky, ${c.skippedTests} skipped)`],
            ['run status', scan.tally.status],
            ['suites', scan.suites],
            ['test batches', summary.batches],
            ['attachments', `${scan.attachments.uploadable} of ${scan.attachments.total} uploadable (${formatBytes(scan.attachments.bytes)})`],
            ['branch', body.branch],
            ['commit', body.commitSha],
            ['ci', body.ciProvider],
            ['title', body.runTitle],
            ['tags', body.tags],
          ]);
          warnAttachments(ctx, scan.attachments.skipped, 'would not be uploaded');
          return;
        }

        const client = ctx.client('any', UPLOAD_PATIENCE);
        let outcome: UploadOutcome;
        try {
          const projectId = await ctx.projectId(client);
          await client.verify({ projectId });
          outcome = await uploadReport({
            client,
            inputs,
            scan,
            reportHash: hash.hash,
            run: runBody(projectId, scan, flags),
            concurrency,
            onProgress: (p) => view.upload(p),
          });
        } finally {
          view.stop();
        }
        // The dashboard page of the run (the API has the same path under {base_url}).
        const runUrl = `${client.appUrl}/runs/${outcome.runId}`;
        if (out.json) return out.data({ ...outcome, runUrl });
        printSummary(ctx, outcome, scan, runUrl);
      }),
    );
}
