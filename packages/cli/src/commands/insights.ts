import { INSIGHT_WINDOWS } from '@testreport/contract/core';
import type { QueryOf, ResponseOf } from '@testreport/contract';
import type { Command } from 'commander';
import { command } from '../lib/action.js';
import type { Context } from '../lib/context.js';
import { UsageError } from '../lib/errors.js';
import { intFlag, ms } from '../lib/flags.js';
import type { Output } from '../lib/output.js';

export type InsightsInput = Omit<QueryOf<'insights'>, 'projectId'>;
type Insights = ResponseOf<'insights'>;
type Day = Insights['trend'][number];

/** Trends, slowest, most failing and flakiest tests and duration regressions of the project in force. */
export async function getInsights(ctx: Context, input: InsightsInput = {}): Promise<Insights> {
  const client = ctx.client();
  return client.insights.get({ projectId: await ctx.projectId(client), ...input });
}

const BLOCKS = '▁▂▃▄▅▆▇█';

/**
 * One character per day, low to high over `[min, max]`; a day without a value is a space, so
 * "no runs" never reads as "0 %".
 */
export function sparkline(values: (number | null)[], min: number, max: number): string {
  const span = Math.max(max - min, 1e-9);
  return values.map((v) => (v === null ? ' ' : BLOCKS[Math.min(7, Math.max(0, Math.round(((v - min) / span) * 7)))])).join('');
}

/** Run durations run into minutes: "3m 45s" reads better than "225.0s". */
const runTime = (v: number) => (v < 60_000 ? ms(v)! : `${Math.floor(v / 60_000)}m ${Math.round((v % 60_000) / 1000)}s`);

/** Every rate of the answer (pass, failure, flaky, change) is in percent. */
const pct = (n: number) => `${Number(n.toFixed(1))}%`;

/** The first and the last day with a value, as "a → b". */
function firstToLast(days: Day[], pick: (d: Day) => number | null, show: (v: number) => string): string {
  const known = days.map(pick).filter((v): v is number => v !== null);
  if (known.length === 0) return '-';
  return known.length === 1 ? show(known[0]) : `${show(known[0])} → ${show(known[known.length - 1])}`;
}

export function printInsights(out: Output, ins: Insights): void {
  const scope = [ins.branch ? `branch ${ins.branch}` : 'all branches', ins.owner ? `owner ${ins.owner}` : null].filter(Boolean).join(', ');
  out.line(out.c.bold(`Insights, last ${ins.days} days (${ins.from} – ${ins.to} UTC), ${scope}`));
  const runs = ins.trend.reduce((n, d) => n + d.runs, 0);
  if (runs === 0) {
    out.line(out.c.dim(`No runs in this window. Upload results (reporter upload, or the Playwright reporter), or try --days 90${ins.branch ? ' or another --branch' : ''}.`));
  } else {
    const maxDur = Math.max(...ins.trend.map((d) => d.medianDuration ?? 0));
    const label = (s: string) => out.c.dim(s.padEnd(11));
    out.line(`${label('runs')}${runs} on ${ins.trend.filter((d) => d.runs > 0).length} of ${ins.days} days`);
    out.line(`${label('pass rate')}${out.c.green(sparkline(ins.trend.map((d) => d.passRate), 0, 100))}  ${firstToLast(ins.trend, (d) => d.passRate, pct)}`);
    out.line(`${label('median run')}${out.c.cyan(sparkline(ins.trend.map((d) => d.medianDuration), 0, maxDur))}  ${firstToLast(ins.trend, (d) => d.medianDuration, runTime)}`);
  }
  const heading = (text: string) => {
    out.line();
    out.line(out.c.bold(text));
  };
  heading(`Duration regressions (p50 vs the ${ins.days} days before)`);
  out.table(ins.regressions, [
    { header: 'BEFORE', value: (t) => ms(t.p50Before), align: 'right' },
    { header: 'AFTER', value: (t) => ms(t.p50After), align: 'right' },
    { header: 'CHANGE', value: (t) => `+${pct(t.change)}`, align: 'right', color: (s) => out.c.red(s) },
    { header: 'TEST ID', value: (t) => t.testId },
    { header: 'TEST', value: (t) => t.fullTitle, max: 70 },
  ], 'No test got slower by 20% and 100 ms or more.');
  heading('Slowest');
  out.table(ins.slowest, [
    { header: 'P50', value: (t) => ms(t.p50), align: 'right' },
    { header: 'P95', value: (t) => ms(t.p95), align: 'right' },
    { header: 'RESULTS', value: (t) => t.results, align: 'right' },
    { header: 'TEST ID', value: (t) => t.testId },
    { header: 'TEST', value: (t) => t.fullTitle, max: 70 },
  ], 'No timed results.');
  heading('Most failing');
  out.table(ins.mostFailing, [
    { header: 'RATE', value: (t) => pct(t.failureRate), align: 'right', color: (s) => out.c.red(s) },
    { header: 'FAILED', value: (t) => `${t.failures}/${t.results}`, align: 'right' },
    { header: 'TEST ID', value: (t) => t.testId },
    { header: 'TEST', value: (t) => t.fullTitle, max: 70 },
  ], 'No test failed.');
  heading('Flakiest');
  out.table(ins.flakiest, [
    { header: 'RATE', value: (t) => pct(t.flakyRate), align: 'right', color: (s) => out.c.yellow(s) },
    { header: 'FLAKY', value: (t) => `${t.flaky}/${t.results}`, align: 'right' },
    { header: 'TEST ID', value: (t) => t.testId },
    { header: 'TEST', value: (t) => t.fullTitle, max: 70 },
  ], 'No test passed only on a retry.');
}

type Flags = { days?: string; branch?: string; owner?: string; limit?: string };

export function insightsInput(flags: Flags): InsightsInput {
  const days = INSIGHT_WINDOWS.find((d) => String(d) === (flags.days ?? '30'));
  if (!days) throw new UsageError(`--days must be one of ${INSIGHT_WINDOWS.join(', ')}, got "${flags.days}"`);
  return {
    days,
    ...(flags.branch ? { branch: flags.branch } : {}),
    ...(flags.owner ? { owner: flags.owner } : {}),
    ...(flags.limit !== undefined ? { limit: intFlag('--limit', flags.limit, 1, 100) } : {}),
  };
}

export function registerInsights(program: Command): void {
  program
    .command('insights')
    .summary('pass-rate and duration trend, slowest, most failing and flakiest tests, duration regressions')
    .option('--days <n>', `window: ${INSIGHT_WINDOWS.join(', ')} days up to today (UTC)`, '30')
    .option('--branch <name>', 'only runs of this branch')
    .option('--owner <owner>', 'only tests this CODEOWNERS owner owns, e.g. @acme/checkout')
    .option('--limit <n>', 'items per list (1-100)', '20')
    .addHelpText('after', `
Examples:
  $ reporter insights --days 7 --branch main
  $ reporter insights --owner @acme/checkout --limit 5
  $ reporter insights --json | jq '.regressions[] | {fullTitle, p50Before, p50After}'`)
    .action(command({ input: (_args, flags: Flags) => insightsInput(flags), run: getInsights, print: printInsights }));
}
