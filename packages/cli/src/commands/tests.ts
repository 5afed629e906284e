import { TEST_STATUSES } from '@testreport/contract/core';
import type { QueryOf, ResponseOf, Step } from '@testreport/contract';
import { Option, type Command } from 'commander';
import { command } from '../lib/action.js';
import type { Context } from '../lib/context.js';
import { ms, page, pageNote, pageOptions, when } from '../lib/flags.js';
import type { Output } from '../lib/output.js';

export type TestListInput = Omit<QueryOf<'tests.list'>, 'projectId'>;
/** A test result; with `steps` asked for, its steps too. */
export type TestDetail = ResponseOf<'tests.get'> & { steps?: Step[] };

/** Test results of the project in force (or of one run). */
export async function listTests(ctx: Context, input: TestListInput = {}): Promise<ResponseOf<'tests.list'>> {
  const client = ctx.client();
  return client.tests.list({ projectId: await ctx.projectId(client), ...input });
}

export async function getTest(ctx: Context, input: { testId: string; steps?: boolean }): Promise<TestDetail> {
  const client = ctx.client();
  const t = await client.tests.get(input.testId);
  if (!input.steps) return t;
  return { ...t, steps: (await client.tests.steps(input.testId)).data };
}

/** The last 20 results of the same test case, newest first. */
export async function testHistory(ctx: Context, input: { testId: string }): Promise<ResponseOf<'tests.history'>> {
  return ctx.client().tests.history(input.testId);
}

function printSteps(out: Output, steps: Step[], depth = 0): void {
  for (const s of steps) {
    const mark = s.status === 'failed' ? out.c.red('✗') : out.c.green('✓');
    out.line(`${'  '.repeat(depth + 1)}${mark} ${s.title} ${out.c.dim(`[${s.category}] ${ms(s.duration)}`)}${s.error ? ' ' + out.c.red(s.error.message.split('\n')[0]) : ''}`);
    if (s.steps) printSteps(out, s.steps, depth + 1);
  }
}

function printTestList(out: Output, res: ResponseOf<'tests.list'>): void {
  out.table(res.data, [
    { header: 'ID', value: (t) => t.id },
    { header: 'STATUS', value: (t) => t.status, color: (s) => out.status(s) },
    { header: 'DURATION', value: (t) => ms(t.duration), align: 'right' },
    // The CI attempt (re-run) of the build that stored the result: 1 unless the build was re-run.
    { header: 'CI', value: (t) => t.ciAttempt, align: 'right' },
    { header: 'TEST', value: (t) => t.fullTitle, max: 80 },
    { header: 'FILE', value: (t) => t.filePath, max: 40 },
  ], 'No test results.');
  const note = pageNote(res);
  if (note) out.note(note);
}

function printTest(out: Output, t: TestDetail): void {
  out.fields([
    ['id', t.id],
    ['test', t.fullTitle],
    ['status', out.status(t.status)],
    ['duration', ms(t.duration)],
    ['file', t.filePath ? `${t.filePath}${t.lineNumber ? `:${t.lineNumber}` : ''}` : null],
    ['retries', t.retries],
    ['flaky', t.isFlaky],
    ['tags', t.tags],
    ['annotations', t.annotations.map((a) => `${a.type}${a.description ? `: ${a.description}` : ''}`)],
    ['run', t.runId],
    ['created', when(t.createdAt)],
  ]);
  if (t.error) {
    out.line();
    out.line(out.c.red(t.error.message));
    if (t.error.stack && t.error.stack !== t.error.message) out.line(out.c.dim(t.error.stack));
  }
  if (t.stdout) out.line(`\n${out.c.bold('stdout')}\n${t.stdout}`);
  if (t.stderr) out.line(`\n${out.c.bold('stderr')}\n${t.stderr}`);
  if (t.steps) {
    out.line(`\n${out.c.bold('steps')}`);
    if (t.steps.length === 0) out.line(out.c.dim('  (none)'));
    printSteps(out, t.steps);
  }
}

function printHistory(out: Output, res: ResponseOf<'tests.history'>): void {
  out.table(res.data, [
    { header: 'RESULT', value: (h) => h.id },
    { header: 'STATUS', value: (h) => h.status, color: (s) => out.status(s) },
    { header: 'DURATION', value: (h) => ms(h.duration), align: 'right' },
    { header: 'BRANCH', value: (h) => h.branch, max: 30 },
    { header: 'COMMIT', value: (h) => h.commitSha?.slice(0, 8) },
    { header: 'RUN', value: (h) => h.runId },
    { header: 'CREATED', value: (h) => when(h.createdAt) },
  ], 'No history.');
}

type TestStatus = (typeof TEST_STATUSES)[number];

export function registerTests(program: Command): void {
  const tests = program.command('tests').summary('list and inspect test results').addHelpText('after', `
Examples:
  $ reporter tests list --run 0193b7c2-… --status failed
  $ reporter tests list --search "checkout"
  $ reporter tests list --owner @acme/checkout
  $ reporter tests get 0193b7c3-… --steps
  $ reporter tests history 0193b7c3-…`);

  const list = tests
    .command('list')
    .description('list test results of the project (or of one run)')
    .option('--run <runId>', 'only results of this run')
    .addOption(new Option('--status <status>', 'only results with this status').choices(TEST_STATUSES))
    .option('--search <text>', 'title contains this text')
    .option('--superseded', 'with --run of a re-run CI build: also the results a later CI attempt replaced')
    .option('--owner <owner>', 'only tests this CODEOWNERS owner owns, e.g. @acme/checkout');
  for (const o of pageOptions()) list.addOption(o);
  list.action(
    command({
      input: (_args, flags: { run?: string; status?: TestStatus; search?: string; owner?: string; superseded?: boolean; limit?: string; offset?: string }) => ({
        runId: flags.run,
        status: flags.status,
        search: flags.search,
        owner: flags.owner,
        ...(flags.superseded ? { superseded: 'true' as const } : {}),
        ...page(flags),
      }),
      run: listTests,
      print: printTestList,
    }),
  );

  tests
    .command('get')
    .description('show one test result with its error, output and (with --steps) its steps')
    .argument('<testId>')
    .option('--steps', 'also show the steps')
    .action(command({ input: ([testId], flags: { steps?: boolean }) => ({ testId, steps: flags.steps }), run: getTest, print: printTest }));

  tests
    .command('history')
    .description('the last 20 results of the same test case, newest first')
    .argument('<testId>')
    .action(command({ input: ([testId]) => ({ testId }), run: testHistory, print: printHistory }));
}
