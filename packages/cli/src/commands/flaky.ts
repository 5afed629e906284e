import type { Command } from 'commander';
import { action } from '../lib/action.js';
import { boolFlag, numberFlag, page, pageNote, pageOptions, when } from '../lib/flags.js';

export function registerFlaky(program: Command): void {
  const flaky = program.command('flaky').summary('flaky tests and quarantine').addHelpText('after', `
Examples:
  $ reporter flaky list --min-score 0.2
  $ reporter flaky list --quarantined
  $ reporter flaky quarantine 0193b7c3-…      # any result id of the test case
  $ reporter flaky release 0193b7c3-…`);

  const list = flaky
    .command('list')
    .description('test cases with a flakiness score above 0, highest first (score = flaky runs / runs, over the last 50)')
    .option('--min-score <score>', 'only cases scoring at least this (0-1)')
    .option('--quarantined [bool]', 'with no value or "true": only quarantined cases; "false": only the others');
  for (const o of pageOptions()) list.addOption(o);
  list.action(
    action(async (ctx, flags: { minScore?: string; quarantined?: string | boolean; limit?: string; offset?: string }) => {
      const client = ctx.client();
      const p = page(flags);
      const quarantined = flags.quarantined === true ? true : boolFlag('--quarantined', flags.quarantined as string | undefined);
      const res = await client.flakiness.list({
        projectId: await ctx.projectId(client),
        ...(flags.minScore !== undefined ? { minScore: numberFlag('--min-score', flags.minScore, 0, 1) } : {}),
        ...(quarantined !== undefined ? { quarantined: String(quarantined) as 'true' | 'false' } : {}),
        ...p,
      });
      if (ctx.out.json) return ctx.out.data(res);
      ctx.out.table(res.data, [
        { header: 'TEST ID', value: (f) => f.testId },
        { header: 'SCORE', value: (f) => f.flakinessScore.toFixed(4), align: 'right', color: (t, f) => (f.flakinessScore >= 0.3 ? ctx.out.c.red(t) : ctx.out.c.yellow(t)) },
        { header: 'FLAKY/RUNS', value: (f) => `${f.flakyRuns}/${f.totalRuns}`, align: 'right' },
        { header: 'QUARANTINED', value: (f) => f.isQuarantined },
        { header: 'LAST FLAKY', value: (f) => when(f.lastFlakyAt) },
        { header: 'TEST', value: (f) => f.fullTitle ?? f.testTitle, max: 70 },
      ], 'No flaky tests.');
      const s = res.summary;
      ctx.out.line(ctx.out.c.dim(`\n${s.totalFlakyTests} flaky, ${s.quarantinedTests} quarantined, average score ${s.averageFlakinessScore.toFixed(4)}`));
      const note = pageNote(res.total, p.limit, p.offset, res.data.length);
      if (note) ctx.out.note(note);
    }),
  );

  for (const [name, isQuarantined] of [['quarantine', true], ['release', false]] as const) {
    flaky
      .command(name)
      .description(isQuarantined ? 'quarantine the test case a result belongs to' : 'take the test case a result belongs to out of quarantine')
      .argument('<testId>', 'id of any result of the case (as `flaky list` and `tests list` show)')
      .action(
        action(async (ctx, testId: string) => {
          const client = ctx.client();
          const res = await client.flakiness.update({ testId, projectId: await ctx.projectId(client), isQuarantined });
          if (ctx.out.json) return ctx.out.data(res);
          ctx.out.success(isQuarantined ? `Test ${testId} quarantined` : `Test ${testId} released from quarantine`);
        }),
      );
  }
}
