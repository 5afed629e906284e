import type { QueryOf, ResponseOf, SearchSnippet } from '@testreport/contract';
import type { Command } from 'commander';
import { command } from '../lib/action.js';
import type { Context } from '../lib/context.js';
import { page, pageNote, pageOptions, when } from '../lib/flags.js';
import type { Output } from '../lib/output.js';

export type SearchInput = Omit<QueryOf<'search'>, 'projectId'>;

/** Results of the project in force whose titles, errors or output contain the text, newest first. */
export async function search(ctx: Context, input: SearchInput): Promise<ResponseOf<'search'>> {
  const client = ctx.client();
  return client.search.query({ projectId: await ctx.projectId(client), ...input });
}

/** The snippet on one line, its matches marked with `mark` (bold in colour, as is without). */
export function snippetLine(s: SearchSnippet, mark: (text: string) => string): string {
  let out = '';
  let at = 0;
  for (const h of s.highlights) {
    out += s.text.slice(at, h.start) + mark(s.text.slice(h.start, h.end));
    at = h.end;
  }
  return (out + s.text.slice(at)).replace(/\s+/g, ' ');
}

export function printSearch(out: Output, res: ResponseOf<'search'>): void {
  if (res.data.length === 0) out.line(out.c.dim('Nothing found.'));
  for (const h of res.data) {
    const where = `${h.branch ?? '(no branch)'}${h.commitSha ? ` @ ${h.commitSha.slice(0, 8)}` : ''}`;
    out.line(`${when(h.createdAt)}  ${where}  ${out.status(h.status)}  ${h.fullTitle}  ${out.c.dim(`(test ${h.testId})`)}`);
    out.line(`  ${out.c.dim(`${h.snippet.in}:`)} ${snippetLine(h.snippet, (t) => out.c.bold.red(t))}`);
  }
  const note = pageNote(res);
  if (note) out.note(note);
}

export function registerSearch(program: Command): void {
  const cmd = program
    .command('search')
    .summary('find results whose titles, error messages or output contain a text, newest first')
    .argument('<text>', 'at least 3 characters, case-insensitive, taken literally')
    .option('--in <fields>', 'where to look: titles, errors, output (comma-separated; default all)')
    .option('--branch <name>', 'only results on this branch')
    .option('--since <iso>', 'only results stored at or after this time (ISO 8601)')
    .addHelpText('after', `
Examples:
  $ reporter search ECONNRESET --in errors,output --branch main
  $ reporter search "checkout > pays" --in titles --json`);
  for (const o of pageOptions()) cmd.addOption(o);
  cmd.action(
    command({
      input: ([q], flags: { in?: string; branch?: string; since?: string; limit?: string; offset?: string }) => ({
        q: q!, in: flags.in, branch: flags.branch, since: flags.since, ...page(flags),
      }),
      run: search,
      print: printSearch,
    }),
  );
}
