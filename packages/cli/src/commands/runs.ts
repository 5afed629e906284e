import { RUN_STATUSES } from '@testreport/contract/core';
import type { QueryOf, ResponseOf } from '@testreport/contract';
import { Option, type Command } from 'commander';
import { detectCi, withBuildIdentity } from '@testreport/reporter';
import { command } from '../lib/action.js';
import { addCompareCommand } from './compare.js';
import { UsageError } from '../lib/errors.js';
import type { Context } from '../lib/context.js';
import { ms, page, pageNote, pageOptions, when } from '../lib/flags.js';
import type { Output } from '../lib/output.js';

export type RunListInput = Omit<QueryOf<'runs.list'>, 'projectId'>;

/** Runs of the project in force, newest first. */
export async function listRuns(ctx: Context, input: RunListInput = {}): Promise<ResponseOf<'runs.list'>> {
  const client = ctx.client();
  return client.runs.list({ projectId: await ctx.projectId(client), ...input });
}

export async function getRun(ctx: Context, input: { runId: string }): Promise<ResponseOf<'runs.get'>> {
  return ctx.client().runs.get(input.runId);
}

/** Asks first (or needs --yes), then deletes the run with its tests and artifacts. */
export async function deleteRun(ctx: Context, input: { runId: string }): Promise<ResponseOf<'runs.delete'>> {
  await ctx.confirm(`Delete run ${input.runId} with all its tests and artifacts`);
  return ctx.client().runs.delete(input.runId);
}

/** A run named by id, or (no id) the run of the CI build this command runs in: --build-id/--group or detected. */
export interface BuildRunInput {
  runId?: string;
  buildId?: string;
  group?: string;
}

async function buildRunId(ctx: Context, input: BuildRunInput): Promise<string> {
  if (input.runId) return input.runId;
  const ci = withBuildIdentity(detectCi(ctx.env, { git: false }), { buildId: input.buildId, group: input.group }, ctx.env);
  if (!ci.ciBuildId) throw new UsageError('give the run id, or run this inside the CI build (or pass --build-id)');
  const client = ctx.client();
  const projectId = await ctx.projectId(client);
  const page = await client.runs.list({ projectId, ciBuildId: ci.ciBuildId, group: ci.group ?? '', limit: 1 });
  if (page.data[0]) return page.data[0].id;
  throw new Error(`no run of CI build ${ci.ciBuildId}${ci.group ? ` (group ${ci.group})` : ''} in project ${projectId}`);
}

/**
 * Finishes a run of a CI build now, from the shards that reported (the others are left unfinished):
 * for pipelines that end early, e.g. an `if: cancelled()` step. Idempotent.
 */
export async function completeRun(ctx: Context, input: BuildRunInput): Promise<ResponseOf<'runs.complete'>> {
  return ctx.client().runs.complete(await buildRunId(ctx, input));
}

/** Finishes a run as cancelled (a cancelled pipeline). Idempotent. */
export async function cancelRun(ctx: Context, input: BuildRunInput): Promise<ResponseOf<'runs.cancel'>> {
  return ctx.client().runs.cancel(await buildRunId(ctx, input));
}

/** Every attempt of every shard of a run. */
export async function runShards(ctx: Context, input: { runId: string }): Promise<ResponseOf<'runs.shards'>> {
  return ctx.client().runs.shards(input.runId);
}

function printShards(out: Output, res: ResponseOf<'runs.shards'>): void {
  out.table(res.data, [
    { header: 'SHARD', value: (s) => s.index, align: 'right' },
    { header: 'ATTEMPT', value: (s) => s.attempt, align: 'right' },
    { header: 'STATUS', value: (s) => s.status, color: (t) => out.status(t) },
    { header: 'TESTS', value: (s) => s.totalTests, align: 'right' },
    { header: 'FAILED', value: (s) => s.failedTests, align: 'right' },
    { header: 'FLAKY', value: (s) => s.flakyTests, align: 'right' },
    { header: 'DURATION', value: (s) => ms(s.duration), align: 'right' },
    { header: 'STARTED', value: (s) => when(s.startedAt) },
  ], 'No shards: the run is not part of a CI build.');
}

function printRunList(out: Output, res: ResponseOf<'runs.list'>): void {
  out.table(res.data, [
    { header: 'ID', value: (r) => r.id },
    { header: 'STATUS', value: (r) => r.status, color: (t) => out.status(t) },
    { header: 'BRANCH', value: (r) => r.branch, max: 30 },
    { header: 'COMMIT', value: (r) => r.commitSha?.slice(0, 8) },
    { header: 'TESTS', value: (r) => r.totalTests, align: 'right' },
    { header: 'FAILED', value: (r) => r.failedTests, align: 'right' },
    { header: 'FLAKY', value: (r) => r.flakyTests, align: 'right' },
    { header: 'PASS %', value: (r) => r.passRate.toFixed(2), align: 'right' },
    { header: 'DURATION', value: (r) => ms(r.duration), align: 'right' },
    { header: 'CREATED', value: (r) => when(r.createdAt) },
  ], 'No runs.');
  const note = pageNote(res);
  if (note) out.note(note);
}

function printRun(out: Output, r: ResponseOf<'runs.get'>): void {
  out.fields([
    ['id', r.id],
    ['status', out.status(r.status)],
    ['title', r.runTitle],
    ['tests', `${r.totalTests} (${r.passedTests} passed, ${r.failedTests} failed, ${r.flakyTests} flaky, ${r.skippedTests} skipped)`],
    ['pass rate', `${r.passRate.toFixed(2)}%`],
    ['duration', ms(r.duration)],
    ['branch', r.branch],
    ['commit', r.commitSha],
    ['message', r.commitMessage?.split('\n')[0]],
    ['author', r.commitAuthor],
    ['ci', [r.ciProvider, r.ciBuildId].filter(Boolean).join(' #')],
    ['build url', r.ciBuildUrl],
    ['framework', r.frameworkVersion],
    ['workers', r.workers],
    ['group', r.group],
    ['shards', r.finishedShards !== null && r.shardTotal ? `${r.finishedShards} of ${r.shardTotal} finished` : r.shardCurrent ? `${r.shardCurrent}/${r.shardTotal}` : null],
    ['finished by', r.finishReason],
    ['tags', r.tags],
    ['created', when(r.createdAt)],
    ['project', r.projectId],
  ]);
}

type RunStatus = (typeof RUN_STATUSES)[number];

export function registerRuns(program: Command): void {
  const runs = program.command('runs').summary('list, show, finish and delete runs').addHelpText('after', `
Examples:
  $ reporter runs list --status failed --branch main
  $ reporter runs get 0193b7c2-…
  $ reporter runs delete 0193b7c2-… --yes
  $ reporter runs compare 0193b7c2-… 0193b7a0-… # what changed between two runs of any branches
  $ reporter runs shards 0193b7c2-…             # every shard and attempt of a CI build's run
  $ reporter runs complete 0193b7c2-…           # the pipeline ended early: finish with what arrived
  $ reporter runs cancel 0193b7c2-…             # the pipeline was cancelled`);

  const list = runs
    .command('list')
    .description('list runs of the project, newest first')
    .addOption(new Option('--status <status>', 'only runs with this status').choices(RUN_STATUSES))
    .option('--branch <name>', 'only runs of this branch');
  for (const o of pageOptions()) list.addOption(o);
  list.action(
    command({
      input: (_args, flags: { status?: RunStatus; branch?: string; limit?: string; offset?: string }) => ({ status: flags.status, branch: flags.branch, ...page(flags) }),
      run: listRuns,
      print: printRunList,
    }),
  );

  runs
    .command('get')
    .description('show one run with its CI metadata and counts')
    .argument('<runId>')
    .action(command({ input: ([runId]) => ({ runId }), run: getRun, print: printRun }));

  addCompareCommand(runs);

  runs
    .command('shards')
    .description('list every shard and attempt of a run that CI shards report into')
    .argument('<runId>')
    .action(command({ input: ([runId]) => ({ runId }), run: runShards, print: printShards }));

  const finishers = [
    ['complete', 'finish the run of a CI build now with the shards that reported (a pipeline that ended early)', completeRun],
    ['cancel', 'finish the run of a CI build as cancelled (a cancelled pipeline)', cancelRun],
  ] as const;
  for (const [name, description, run] of finishers) {
    runs
      .command(name)
      .description(`${description}; without <runId>, the run of the CI build this runs in`)
      .argument('[runId]')
      .option('--build-id <id>', 'the CI build (TESTREPORT_BUILD_ID; default: detected, e.g. GITHUB_RUN_ID)')
      .option('--group <name>', 'the group of the run (TESTREPORT_GROUP; default: the CI job name)')
      .action(
        command({
          input: ([runId], flags: { buildId?: string; group?: string }) => ({ runId, ...flags }),
          run,
          print: (out, r) => out.success(`Run ${r.id} finished: ${r.status}${r.finishedShards !== null && r.shardTotal ? ` (${r.finishedShards} of ${r.shardTotal} shards)` : ''}`),
        }),
      );
  }

  runs
    .command('delete')
    .description('delete a run with all its tests and artifacts (asks first; --yes to skip)')
    .argument('<runId>')
    .action(
      command({
        input: ([runId]) => ({ runId }),
        run: deleteRun,
        print: (out, res, { runId }) => out.success(res.message || `Run ${runId} deleted`),
      }),
    );
}
