import type { BodyOf, QueryOf, ResponseOf } from '@testreport/contract';
import type { Command } from 'commander';
import { command } from '../lib/action.js';
import type { Context } from '../lib/context.js';
import { boolFlag, numberFlag, page, pageNote, pageOptions, when } from '../lib/flags.js';
import type { Output } from '../lib/output.js';

export type FlakyListInput = Omit<QueryOf<'flakiness.list'>, 'projectId'>;

/** Test cases of the project in force with a flakiness score above 0, highest first. */
export async function listFlaky(ctx: Context, input: FlakyListInput = {}): Promise<ResponseOf<'flakiness.list'>> {
  const client = ctx.client();
  return client.flakiness.list({ projectId: await ctx.projectId(client), ...input });
}

/** Quarantines (or releases) the test case that the result `testId` belongs to. */
export async function setQuarantine(ctx: Context, input: Omit<BodyOf<'flakiness.update'>, 'projectId'>): Promise<ResponseOf<'flakiness.update'>> {
  const client = ctx.client();
  return client.flakiness.update({ ...input, projectId: await ctx.projectId(client) });
}

/** Who quarantined or released the case of `testId`, when and why, newest first. */
export async function flakyEvents(ctx: Context, input: { testId: string }): Promise<ResponseOf<'flakiness.events'>> {
  const client = ctx.client();
  return client.flakiness.events(input.testId, await ctx.projectId(client));
}

function printEvents(out: Output, res: ResponseOf<'flakiness.events'>): void {
  out.table(res.data, [
    { header: 'WHEN', value: (e) => when(e.at) },
    { header: 'ACTION', value: (e) => e.action, color: (t, e) => (e.action === 'quarantined' ? out.c.yellow(t) : out.c.green(t)) },
    { header: 'BY', value: (e) => `${e.actor.name} (${e.actor.type})`, max: 40 },
    { header: 'SCORE', value: (e) => e.score.toFixed(4), align: 'right' },
    { header: 'REASON', value: (e) => e.reason, max: 70 },
  ], 'No quarantine changes for this test.');
}

function printFlakyList(out: Output, res: ResponseOf<'flakiness.list'>): void {
  out.table(res.data, [
    { header: 'TEST ID', value: (f) => f.testId },
    { header: 'SCORE', value: (f) => f.flakinessScore.toFixed(4), align: 'right', color: (t, f) => (f.flakinessScore >= 0.3 ? out.c.red(t) : out.c.yellow(t)) },
    { header: 'FLAKY/RUNS', value: (f) => `${f.flakyRuns}/${f.totalRuns}`, align: 'right' },
    { header: 'QUARANTINED', value: (f) => f.isQuarantined },
    { header: 'BROKEN', value: (f) => f.isBroken },
    { header: 'LAST FLAKY', value: (f) => when(f.lastFlakyAt) },
    { header: 'TEST', value: (f) => f.fullTitle ?? f.testTitle, max: 70 },
    { header: 'OWNERS', value: (f) => f.owners.join(' '), max: 40 },
  ], 'No flaky tests.');
  const s = res.summary;
  out.line(out.c.dim(`\n${s.totalFlakyTests} flaky, ${s.quarantinedTests} quarantined, average score ${s.averageFlakinessScore.toFixed(4)}`));
  const note = pageNote(res);
  if (note) out.note(note);
}

export function registerFlaky(program: Command): void {
  const flaky = program.command('flaky').summary('flaky tests and quarantine').addHelpText('after', `
Examples:
  $ reporter flaky list --min-score 0.2
  $ reporter flaky list --quarantined
  $ reporter flaky quarantine 0193b7c3-…      # any result id of the test case
  $ reporter flaky release 0193b7c3-… --reason "fixed in #123"
  $ reporter flaky list --owner @acme/checkout
  $ reporter flaky events 0193b7c3-…          # who quarantined or released it, and why`);

  const list = flaky
    .command('list')
    .description('test cases with a flakiness score above 0, highest first (score = flaky runs / runs, over the last 50)')
    .option('--min-score <score>', 'only cases scoring at least this (0-1)')
    .option('--quarantined [bool]', 'with no value or "true": only quarantined cases; "false": only the others')
    .option('--owner <owner>', 'only cases this CODEOWNERS owner owns, e.g. @acme/checkout');
  for (const o of pageOptions()) list.addOption(o);
  list.action(
    command({
      input: (_args, flags: { minScore?: string; quarantined?: string | boolean; owner?: string; limit?: string; offset?: string }) => {
        const p = page(flags);
        const quarantined = flags.quarantined === true ? true : boolFlag('--quarantined', flags.quarantined as string | undefined);
        const input: FlakyListInput = { ...p };
        if (flags.owner !== undefined) input.owner = flags.owner;
        if (flags.minScore !== undefined) input.minScore = numberFlag('--min-score', flags.minScore, 0, 1);
        if (quarantined !== undefined) input.quarantined = String(quarantined) as 'true' | 'false';
        return input;
      },
      run: listFlaky,
      print: printFlakyList,
    }),
  );

  for (const [name, isQuarantined] of [['quarantine', true], ['release', false]] as const) {
    flaky
      .command(name)
      .description(isQuarantined ? 'quarantine the test case a result belongs to' : 'take the test case a result belongs to out of quarantine')
      .argument('<testId>', 'id of any result of the case (as `flaky list` and `tests list` show)')
      .option('--reason <text>', 'why, for the audit trail (`flaky events`)')
      .action(
        command({
          input: ([testId], flags: { reason?: string }) => ({ testId, isQuarantined, ...(flags.reason ? { reason: flags.reason } : {}) }),
          run: setQuarantine,
          print: (out, _res, { testId }) => out.success(isQuarantined ? `Test ${testId} quarantined` : `Test ${testId} released from quarantine`),
        }),
      );
  }

  flaky
    .command('events')
    .description('quarantine and release events of a test case, newest first: who (user, API key or policy), why, score at the time')
    .argument('<testId>', 'id of any result of the case')
    .action(command({ input: ([testId]) => ({ testId }), run: flakyEvents, print: printEvents }));
}
