import type { QueryOf, ResponseOf } from '@testreport/contract';
import type { Command } from 'commander';
import { command } from '../lib/action.js';
import type { Context } from '../lib/context.js';
import { page, pageNote, pageOptions, when } from '../lib/flags.js';
import type { Output } from '../lib/output.js';

export type ErrorListInput = Omit<QueryOf<'errors.list'>, 'projectId'>;

/** Error groups of the project in force, most recently seen first. */
export async function listErrors(ctx: Context, input: ErrorListInput = {}): Promise<ResponseOf<'errors.list'>> {
  const client = ctx.client();
  return client.errors.list({ projectId: await ctx.projectId(client), ...input });
}

/** One error group with its daily occurrences and the tests it hits. */
export async function getError(ctx: Context, input: { fingerprint: string; branch?: string }): Promise<ResponseOf<'errors.get'>> {
  const client = ctx.client();
  return client.errors.get(input.fingerprint, { projectId: await ctx.projectId(client), ...(input.branch ? { branch: input.branch } : {}) });
}

type Sighting = ResponseOf<'errors.get'>['firstSeen'];
const sighting = (s: Sighting) => `${when(s.at)} on ${s.branch ?? '(no branch)'}${s.commitSha ? ` @ ${s.commitSha.slice(0, 8)}` : ''} (run ${s.runId})`;

export function printErrorList(out: Output, res: ResponseOf<'errors.list'>): void {
  out.table(res.data, [
    { header: 'FINGERPRINT', value: (g) => g.fingerprint },
    { header: 'OCCUR', value: (g) => g.occurrences, align: 'right' },
    { header: 'TESTS', value: (g) => g.tests, align: 'right' },
    { header: 'RUNS', value: (g) => g.runs, align: 'right' },
    { header: 'FIRST SEEN', value: (g) => `${g.firstSeen.at.slice(0, 10)} ${g.firstSeen.commitSha?.slice(0, 8) ?? ''}`.trim() },
    { header: 'LAST SEEN', value: (g) => g.lastSeen.at.slice(0, 10) },
    { header: 'ERROR', value: (g) => g.message, max: 80 },
  ], 'No errors.');
  const note = pageNote(res);
  if (note) out.note(note);
}

export function printError(out: Output, g: ResponseOf<'errors.get'>): void {
  out.fields([
    ['fingerprint', g.fingerprint],
    ['error', g.message],
    ['file', g.filePath],
    ['occurrences', `${g.occurrences} in ${g.runs} runs, ${g.tests} tests`],
    ['first seen', sighting(g.firstSeen)],
    ['last seen', sighting(g.lastSeen)],
  ]);
  out.line();
  out.table(g.daily, [
    { header: 'DAY', value: (d) => d.date },
    { header: 'OCCURRENCES', value: (d) => d.occurrences, align: 'right' },
  ]);
  out.line();
  out.table(g.testCases, [
    { header: 'TEST ID', value: (t) => t.testId },
    { header: 'OCCUR', value: (t) => t.occurrences, align: 'right' },
    { header: 'TEST', value: (t) => t.fullTitle, max: 70 },
  ]);
}

export function registerErrors(program: Command): void {
  const errors = program.command('errors').summary('error groups across runs: new errors, first seen, where they hit').addHelpText('after', `
Examples:
  $ reporter errors list --branch main --q ECONNRESET
  $ reporter errors get 3f9c0a5e12b4d7e8`);

  const list = errors
    .command('list')
    .description('list error groups, most recently seen first, with first seen (commit) and last seen')
    .option('--branch <name>', 'only occurrences on this branch')
    .option('--since <iso>', 'only occurrences at or after this time (ISO 8601)')
    .option('--until <iso>', 'only occurrences before this time (ISO 8601)')
    .option('--q <text>', 'only errors whose message contains this text');
  for (const o of pageOptions()) list.addOption(o);
  list.action(
    command({
      input: (_args, flags: { branch?: string; since?: string; until?: string; q?: string; limit?: string; offset?: string }) => ({
        branch: flags.branch, since: flags.since, until: flags.until, q: flags.q, ...page(flags),
      }),
      run: listErrors,
      print: printErrorList,
    }),
  );

  errors
    .command('get')
    .description('show one error group: first and last seen, occurrences per day, the tests it hits')
    .argument('<fingerprint>')
    .option('--branch <name>', 'only occurrences on this branch')
    .action(command({ input: ([fingerprint], flags: { branch?: string }) => ({ fingerprint, branch: flags.branch }), run: getError, print: printError }));
}
