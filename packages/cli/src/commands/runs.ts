import { RUN_STATUSES, type QueryOf, type ResponseOf } from '@testreport/contract';
import { Option, type Command } from 'commander';
import { command } from '../lib/action.js';
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
    ['shard', r.shardCurrent ? `${r.shardCurrent}/${r.shardTotal}` : null],
    ['tags', r.tags],
    ['created', when(r.createdAt)],
    ['project', r.projectId],
  ]);
}

type RunStatus = (typeof RUN_STATUSES)[number];

export function registerRuns(program: Command): void {
  const runs = program.command('runs').summary('list, show and delete runs').addHelpText('after', `
Examples:
  $ reporter runs list --status failed --branch main
  $ reporter runs get 0193b7c2-…
  $ reporter runs delete 0193b7c2-… --yes`);

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
