import { RUN_STATUSES } from '@testreport/contract';
import { Option, type Command } from 'commander';
import { action } from '../lib/action.js';
import { ms, page, pageNote, pageOptions, when } from '../lib/flags.js';

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
    action(async (ctx, flags: { status?: (typeof RUN_STATUSES)[number]; branch?: string; limit?: string; offset?: string }) => {
      const client = ctx.client();
      const p = page(flags);
      const res = await client.runs.list({ projectId: await ctx.projectId(client), status: flags.status, branch: flags.branch, ...p });
      if (ctx.out.json) return ctx.out.data(res);
      ctx.out.table(res.data, [
        { header: 'ID', value: (r) => r.id },
        { header: 'STATUS', value: (r) => r.status, color: (t) => ctx.out.status(t) },
        { header: 'BRANCH', value: (r) => r.branch, max: 30 },
        { header: 'COMMIT', value: (r) => r.commitSha?.slice(0, 8) },
        { header: 'TESTS', value: (r) => r.totalTests, align: 'right' },
        { header: 'FAILED', value: (r) => r.failedTests, align: 'right' },
        { header: 'FLAKY', value: (r) => r.flakyTests, align: 'right' },
        { header: 'PASS %', value: (r) => r.passRate.toFixed(2), align: 'right' },
        { header: 'DURATION', value: (r) => ms(r.duration), align: 'right' },
        { header: 'CREATED', value: (r) => when(r.createdAt) },
      ], 'No runs.');
      const note = pageNote(res.total, p.limit, p.offset, res.data.length);
      if (note) ctx.out.note(note);
    }),
  );

  runs
    .command('get')
    .description('show one run with its CI metadata and counts')
    .argument('<runId>')
    .action(
      action(async (ctx, id: string) => {
        const r = await ctx.client().runs.get(id);
        if (ctx.out.json) return ctx.out.data(r);
        ctx.out.fields([
          ['id', r.id],
          ['status', ctx.out.status(r.status)],
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
      }),
    );

  runs
    .command('delete')
    .description('delete a run with all its tests and artifacts (asks first; --yes to skip)')
    .argument('<runId>')
    .action(
      action(async (ctx, id: string) => {
        await ctx.confirm(`Delete run ${id} with all its tests and artifacts`);
        const res = await ctx.client().runs.delete(id);
        if (ctx.out.json) return ctx.out.data(res);
        ctx.out.success(res.message || `Run ${id} deleted`);
      }),
    );
}
