import { TEST_STATUSES, type Step } from '@testreport/contract';
import { Option, type Command } from 'commander';
import { action } from '../lib/action.js';
import { ms, page, pageNote, pageOptions, when } from '../lib/flags.js';
import type { Output } from '../lib/output.js';

function printSteps(out: Output, steps: Step[], depth = 0): void {
  for (const s of steps) {
    const mark = s.status === 'failed' ? out.c.red('✗') : out.c.green('✓');
    out.line(`${'  '.repeat(depth + 1)}${mark} ${s.title} ${out.c.dim(`[${s.category}] ${ms(s.duration)}`)}${s.error ? ' ' + out.c.red(s.error.message.split('\n')[0]) : ''}`);
    if (s.steps) printSteps(out, s.steps, depth + 1);
  }
}

export function registerTests(program: Command): void {
  const tests = program.command('tests').summary('list and inspect test results').addHelpText('after', `
Examples:
  $ reporter tests list --run 0193b7c2-… --status failed
  $ reporter tests list --search "checkout"
  $ reporter tests get 0193b7c3-… --steps
  $ reporter tests history 0193b7c3-…`);

  const list = tests
    .command('list')
    .description('list test results of the project (or of one run)')
    .option('--run <runId>', 'only results of this run')
    .addOption(new Option('--status <status>', 'only results with this status').choices(TEST_STATUSES))
    .option('--search <text>', 'title contains this text');
  for (const o of pageOptions()) list.addOption(o);
  list.action(
    action(async (ctx, flags: { run?: string; status?: (typeof TEST_STATUSES)[number]; search?: string; limit?: string; offset?: string }) => {
      const client = ctx.client();
      const p = page(flags);
      const res = await client.tests.list({ projectId: await ctx.projectId(client), runId: flags.run, status: flags.status, search: flags.search, ...p });
      if (ctx.out.json) return ctx.out.data(res);
      ctx.out.table(res.data, [
        { header: 'ID', value: (t) => t.id },
        { header: 'STATUS', value: (t) => t.status, color: (s) => ctx.out.status(s) },
        { header: 'DURATION', value: (t) => ms(t.duration), align: 'right' },
        { header: 'TEST', value: (t) => t.fullTitle, max: 80 },
        { header: 'FILE', value: (t) => t.filePath, max: 40 },
      ], 'No test results.');
      const note = pageNote(res.total, p.limit, p.offset, res.data.length);
      if (note) ctx.out.note(note);
    }),
  );

  tests
    .command('get')
    .description('show one test result with its error, output and (with --steps) its steps')
    .argument('<testId>')
    .option('--steps', 'also show the steps')
    .action(
      action(async (ctx, id: string, flags: { steps?: boolean }) => {
        const client = ctx.client();
        const t = await client.tests.get(id);
        const steps = flags.steps ? (await client.tests.steps(id)).data : undefined;
        if (ctx.out.json) return ctx.out.data(steps ? { ...t, steps } : t);
        ctx.out.fields([
          ['id', t.id],
          ['test', t.fullTitle],
          ['status', ctx.out.status(t.status)],
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
          ctx.out.line();
          ctx.out.line(ctx.out.c.red(t.error.message));
          if (t.error.stack && t.error.stack !== t.error.message) ctx.out.line(ctx.out.c.dim(t.error.stack));
        }
        if (t.stdout) ctx.out.line(`\n${ctx.out.c.bold('stdout')}\n${t.stdout}`);
        if (t.stderr) ctx.out.line(`\n${ctx.out.c.bold('stderr')}\n${t.stderr}`);
        if (steps) {
          ctx.out.line(`\n${ctx.out.c.bold('steps')}`);
          if (steps.length === 0) ctx.out.line(ctx.out.c.dim('  (none)'));
          printSteps(ctx.out, steps);
        }
      }),
    );

  tests
    .command('history')
    .description('the last 20 results of the same test case, newest first')
    .argument('<testId>')
    .action(
      action(async (ctx, id: string) => {
        const res = await ctx.client().tests.history(id);
        if (ctx.out.json) return ctx.out.data(res);
        ctx.out.table(res.data, [
          { header: 'RESULT', value: (h) => h.id },
          { header: 'STATUS', value: (h) => h.status, color: (s) => ctx.out.status(s) },
          { header: 'DURATION', value: (h) => ms(h.duration), align: 'right' },
          { header: 'BRANCH', value: (h) => h.branch, max: 30 },
          { header: 'COMMIT', value: (h) => h.commitSha?.slice(0, 8) },
          { header: 'RUN', value: (h) => h.runId },
          { header: 'CREATED', value: (h) => when(h.createdAt) },
        ], 'No history.');
      }),
    );
}
