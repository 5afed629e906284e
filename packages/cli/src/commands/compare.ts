import { COMPARE_LIMITS } from '@testreport/contract/core';
import type { ResponseOf } from '@testreport/contract';
import type { Command } from 'commander';
import { command } from '../lib/action.js';
import type { Context } from '../lib/context.js';
import { intFlag, ms } from '../lib/flags.js';
import type { Output } from '../lib/output.js';

export type RunCompareResult = ResponseOf<'runs.compare'>;
type Compared = RunCompareResult['newFailures']['items'][number];

/** Compares a run with any other run of its project (the base), whatever their branches. */
export async function compareRuns(ctx: Context, input: { runId: string; baseId: string; limit?: number }): Promise<RunCompareResult> {
  return ctx.client().runs.compare(input.runId, input.baseId, input.limit === undefined ? {} : { limit: input.limit });
}

const SECTIONS = [
  ['newFailures', 'New failures'],
  ['fixed', 'Fixed'],
  ['stillFailing', 'Still failing'],
  ['added', 'Added'],
  ['removed', 'Removed'],
  ['slower', 'Slower'],
  ['faster', 'Faster'],
] as const;

export function printComparison(out: Output, c: RunCompareResult): void {
  const name = (r: RunCompareResult['run']) => `${r.id} (${[r.branch ?? 'no branch', r.commitSha?.slice(0, 8)].filter(Boolean).join(' @ ')}, ${r.status}, ${r.failedTests} failed)`;
  out.fields([
    ['run', name(c.run)],
    ['base', name(c.base)],
  ]);
  const change = (t: Compared) => `${ms(t.baseDuration)} → ${ms(t.duration)}`;
  for (const [key, title] of SECTIONS) {
    const list = c[key];
    out.line();
    out.line(out.c.bold(`${title} (${list.total})`));
    const timed = key === 'slower' || key === 'faster';
    for (const t of list.items) {
      const detail = timed ? change(t) : key === 'removed' || key === 'added' ? (t.status ?? t.baseStatus ?? '') : (t.error ?? '');
      out.line(`  ${t.fullTitle}${t.filePath ? out.c.dim(`  ${t.filePath}`) : ''}${detail ? `  ${out.c.dim(detail)}` : ''}`);
    }
    if (list.total > list.items.length) out.line(out.c.dim(`  and ${list.total - list.items.length} more (--limit)`));
  }
}

/** `reporter runs compare <runId> <baseId>`. */
export function addCompareCommand(runs: Command): void {
  runs
    .command('compare')
    .description(`compare a run with any other run of its project: new failures, fixed, still failing, added, removed, slower and faster (≥ ${COMPARE_LIMITS.slowerRatio * 100}% and ≥ ${COMPARE_LIMITS.slowerMinMs} ms) tests`)
    .argument('<runId>')
    .argument('<baseRunId>', 'the run to compare with (any branch)')
    .option('--limit <n>', `tests shown per list (default ${COMPARE_LIMITS.listDefault})`)
    .action(
      command({
        input: ([runId, baseId], flags: { limit?: string }) => ({ runId, baseId, limit: intFlag('--limit', flags.limit, 1, COMPARE_LIMITS.listMax) }),
        run: compareRuns,
        print: printComparison,
      }),
    );
}
