import { renderRunSummary, type TestReportClient } from '@testreport/client/core';
import { SUMMARY_LIMITS } from '@testreport/contract/core';
import type { ResponseOf } from '@testreport/client';
import { appendStepSummary, appendStepSummaryText, detectCi, STEP_SUMMARY_LIMIT, withBuildIdentity } from '@testreport/reporter';
import { Option, type Command } from 'commander';
import { command } from '../lib/action.js';
import type { Context } from '../lib/context.js';
import { UsageError } from '../lib/errors.js';
import type { Output } from '../lib/output.js';

export const SUMMARY_FORMATS = ['markdown', 'text', 'json'] as const;
export type SummaryOutputFormat = (typeof SUMMARY_FORMATS)[number];

export interface SummaryInput {
  /** The run; else the newest run of `build`; else the newest run of the CI build this job belongs to. */
  runId?: string;
  build?: string;
  /** The group of the build's run (default: TESTREPORT_GROUP or the CI job name, as the reporter sends it). */
  group?: string;
  /** Branch to compare with (default: the project's default branch). */
  base?: string;
  format?: SummaryOutputFormat;
  /** Tests per list asked of the server; the Markdown and text are cut to size after that. */
  limit?: number;
  /** Append the Markdown to $GITHUB_STEP_SUMMARY when it is set (default true). */
  stepSummary?: boolean;
}

/** What `reporter summary` returns: the server's summary, exactly what `--format json` / `--json` print. */
export type SummaryResult = ResponseOf<'runs.summary'>;

/**
 * The run a summary is about: --run, else the run of --build or of the CI build detected from the
 * environment (with the overrides the reporter honours). A build can hold one run per group: the
 * run of this job's group first, else the build's newest run — a summary step in a job of its own
 * after a sharded matrix has another job name than the shards that reported.
 */
async function resolveRun(ctx: Context, input: SummaryInput): Promise<string> {
  if (input.runId) return input.runId;
  const ci = input.build !== undefined ? { ciBuildId: input.build, group: input.group } : withBuildIdentity(detectCi(ctx.env, { git: false }), { group: input.group }, ctx.env);
  if (!ci.ciBuildId) throw new UsageError('which run? pass --run <id> or --build <ciBuildId> (no CI build id found in the environment)');
  const client = ctx.client();
  const projectId = await ctx.projectId(client);
  const ofGroup = await client.runs.list({ projectId, ciBuildId: ci.ciBuildId, group: ci.group ?? '', limit: 1 });
  if (ofGroup.data[0]) return ofGroup.data[0].id;
  const newest = await client.runs.list({ projectId, ciBuildId: ci.ciBuildId, limit: 1 });
  if (!newest.data[0]) throw new Error(`no run of CI build ${ci.ciBuildId} in this project`);
  return newest.data[0].id;
}

/**
 * `reporter summary`: the run's summary from the server (one comparison for dashboard, CLI and
 * chat), and on GitHub Actions the Markdown appended to the job summary ($GITHUB_STEP_SUMMARY).
 */
export async function summary(ctx: Context, input: SummaryInput = {}): Promise<SummaryResult> {
  const limit = input.limit ?? STEP_SUMMARY_LIMIT;
  const runId = await resolveRun(ctx, input);
  const result = await ctx.client().runs.summary(runId, { limit, ...(input.base ? { base: input.base } : {}) });
  const file = ctx.env.GITHUB_STEP_SUMMARY;
  if (file && input.stepSummary !== false) {
    await appendStepSummaryText(file, renderRunSummary(result, { format: 'markdown' }));
    ctx.out.note(`summary appended to ${file}`);
  }
  return result;
}

/**
 * `reporter upload --summary`: after a successful upload, the run's Markdown summary appended to the
 * GitHub job summary. The upload already succeeded, so a failure here is a warning, not an error.
 */
export async function stepSummaryAfterUpload(ctx: Context, client: TestReportClient, runId: string): Promise<void> {
  try {
    const file = await appendStepSummary(client, runId, { env: ctx.env });
    if (file) ctx.out.note(`summary appended to ${file}`);
    else ctx.out.note('--summary: $GITHUB_STEP_SUMMARY is not set (not on GitHub Actions); `reporter summary` prints it');
  } catch (e) {
    ctx.out.warn(`the job summary was not written: ${(e as Error).message}`);
  }
}

export function printSummary(out: Output, r: SummaryResult, input: SummaryInput): void {
  const format = input.format ?? 'text';
  if (format === 'json') return out.data(r);
  out.line(renderRunSummary(r, { format }));
}

function limitOf(raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1 || n > SUMMARY_LIMITS.listMax) throw new UsageError(`--limit must be a whole number from 1 to ${SUMMARY_LIMITS.listMax}, got ${raw}`);
  return n;
}

export function registerSummary(program: Command): void {
  program
    .command('summary')
    .summary('summarise a run for CI: counts, failures, new failures, fixed, flaky and quarantined tests')
    .description(
      'Summarise a run: counts, pass rate, duration, the failed tests with their first error line and dashboard links, ' +
        'failures that are new since the last finished run on the base branch, tests fixed, flaky tests and quarantined failures. ' +
        'Markdown output is one pull/merge-request comment starting with the line <!-- testreport-summary -->, so a CI step can ' +
        'find and update its earlier comment. On GitHub Actions the Markdown is also appended to the job summary ' +
        '($GITHUB_STEP_SUMMARY). Long lists are cut to stay under 60,000 characters, with a count of the rest.',
    )
    .option('--run <id>', 'the run to summarise')
    .option('--build <ciBuildId>', 'the newest run of this CI build (default: the build this CI job belongs to)')
    .option('--group <name>', "the build's run of this group, if it has one (default: TESTREPORT_GROUP or the CI job name)")
    .option('--base <branch>', "branch to compare with (default: the project's default branch setting)")
    .addOption(new Option('--format <format>', 'output format').choices(SUMMARY_FORMATS).default('text'))
    .option('--limit <n>', `tests per list asked of the server (1-${SUMMARY_LIMITS.listMax})`, String(STEP_SUMMARY_LIMIT))
    .option('--no-step-summary', 'do not append to $GITHUB_STEP_SUMMARY')
    .addHelpText(
      'after',
      `
Examples:
  $ reporter summary                                   # in CI, after the tests: the run of this build
  $ reporter summary --run 0193b7c2-… --base develop
  $ reporter summary --format markdown > summary.md && gh pr comment "$PR" --body-file summary.md --edit-last --create-if-none
  $ reporter summary --build "$GITHUB_RUN_ID" --format json | jq '.newFailures.total'

Exit codes: 0 summary printed (failed tests are not an error), 1 the server failed or no run was found, 2 bad flags.`,
    )
    .action(
      command({
        input: (_args, flags: { run?: string; build?: string; group?: string; base?: string; format: SummaryOutputFormat; limit?: string; stepSummary: boolean }) => {
          if (flags.run && flags.build) throw new UsageError('pass --run or --build, not both');
          return { runId: flags.run, build: flags.build, group: flags.group, base: flags.base, format: flags.format, limit: limitOf(flags.limit), stepSummary: flags.stepSummary };
        },
        run: summary,
        print: printSummary,
      }),
    );
}
