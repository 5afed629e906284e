import type { PlannedShard, ResponseOf } from '@testreport/contract';
import { SHARD_PLAN_MAX_TOTAL } from '@testreport/contract/core';
import type { Command } from 'commander';
import { command } from '../lib/action.js';
import type { Context } from '../lib/context.js';
import { intFlag } from '../lib/flags.js';
import type { Output } from '../lib/output.js';
import { discoverTestFiles, fileArgs, fitToLocalFiles } from '../shardPlan/local.js';

export interface ShardPlanInput {
  total: number;
  /** 1-based; without it, every shard. */
  index?: number;
  /** Where the Playwright project is (its test files are listed to catch new and deleted ones). */
  cwd?: string;
  /** Playwright config for the listing (`-c`). */
  config?: string;
  /** false: use the server's plan as is, without listing local files. */
  discover?: boolean;
}

export interface ShardArgs {
  index: number;
  /** What to put after `playwright test`. */
  args: string[];
  files: string[];
  expectedDuration: number | null;
}

/** What `reporter shard-plan` returns (and prints as JSON with --json). */
export interface ShardPlanResult {
  total: number;
  /** 'history': balanced from stored durations; 'playwright': Playwright's own --shard (why in `reason`). */
  source: 'history' | 'playwright';
  reason?: string;
  basedOnRuns: number;
  shards: ShardArgs[];
}

/** A server that is down must not hold up every CI job for the SDK's default minute: fall back soon. */
const PLAN_PATIENCE = { maxRetries: 1, retryBudgetMs: 15_000 };

const playwrightShards = (total: number, reason: string, basedOnRuns = 0): ShardPlanResult => ({
  total,
  source: 'playwright',
  reason,
  basedOnRuns,
  shards: Array.from({ length: total }, (_, i) => ({ index: i + 1, args: [`--shard=${i + 1}/${total}`], files: [], expectedDuration: null })),
});

/**
 * Shard `index` of `total`, balanced by the project's stored durations. Never fails a CI job: without
 * history, without a server or API key, or when there are fewer files than shards, every shard falls
 * back to Playwright's own `--shard=i/N` (all shards fall back together, so no test runs twice or never).
 */
export async function shardPlan(ctx: Context, input: ShardPlanInput): Promise<ShardPlanResult> {
  const { total } = input;
  let plan: ResponseOf<'projects.shardPlan'>;
  try {
    const client = ctx.client('any', PLAN_PATIENCE);
    plan = await client.projects.shardPlan(await ctx.projectId(client), { total });
  } catch (e) {
    return pick(playwrightShards(total, `no plan from the server (${(e as Error).message})`), input.index);
  }
  if (plan.basedOnRuns === 0) return pick(playwrightShards(total, 'no finished runs to learn durations from yet'), input.index);
  let shards: PlannedShard[] = plan.shards;
  if (input.discover !== false) {
    const local = await discoverTestFiles(input.cwd ?? process.cwd(), input.config);
    if (local) shards = fitToLocalFiles(shards, local);
    else ctx.out.note('shard-plan: could not list the local test files with `playwright test --list`; new test files are not in the plan');
  }
  if (shards.some((s) => s.files.length === 0)) {
    return pick(playwrightShards(total, `fewer test files than ${total} shards`, plan.basedOnRuns), input.index);
  }
  const result: ShardPlanResult = {
    total,
    source: 'history',
    basedOnRuns: plan.basedOnRuns,
    shards: shards.map((s) => ({ index: s.index, args: fileArgs(s.files), files: s.files, expectedDuration: s.expectedDuration })),
  };
  return pick(result, input.index);
}

function pick(r: ShardPlanResult, index: number | undefined): ShardPlanResult {
  return index === undefined ? r : { ...r, shards: r.shards.filter((s) => s.index === index) };
}

/** One line of arguments per shard, for `npx playwright test $(reporter shard-plan …)`; notes on stderr. */
function printPlan(out: Output, r: ShardPlanResult): void {
  if (r.source === 'playwright') out.note(`shard-plan: using Playwright's --shard: ${r.reason}`);
  else {
    const s = r.shards.map((x) => `shard ${x.index}: ${x.files.length} files, ~${Math.round((x.expectedDuration ?? 0) / 1000)}s`).join('; ');
    out.note(`shard-plan: balanced from ${r.basedOnRuns} run${r.basedOnRuns === 1 ? '' : 's'} (${s})`);
  }
  for (const s of r.shards) out.line(s.args.join(' '));
}

export function registerShardPlan(program: Command): void {
  program
    .command('shard-plan')
    .summary('split the suite into shards of equal duration, from stored history')
    .description(
      "Prints the arguments for `playwright test` that run shard <index> of <total>: the test files of that shard,\n" +
        "balanced by how long each file took in the project's recent runs. Without history, server or API key it prints\n" +
        "Playwright's own --shard=<index>/<total> instead, so the command can always be spliced in. Local test files are\n" +
        'listed with `playwright test --list` so new files run too (--no-discover skips that). Without --index: every\n' +
        'shard, one line each (with --json: the whole plan).',
    )
    .requiredOption('--total <n>', `number of shards (1-${SHARD_PLAN_MAX_TOTAL})`)
    .option('--index <i>', 'the shard to print (1-based, as in --shard=i/n)')
    .option('-c, --config <file>', 'Playwright config file, for listing the test files')
    .option('--no-discover', 'do not list local test files; use the plan as the server made it')
    .addHelpText(
      'after',
      `
Examples:
  $ npx playwright test $(npx reporter shard-plan --total 3 --index 2)
  $ reporter shard-plan --total 4 --json           # every shard's files and expected duration

Exit codes: 0 (also when falling back to --shard), 2 bad flags.`,
    )
    .action(
      command({
        input: (_args, flags: { total: string; index?: string; config?: string; discover?: boolean }) => {
          const total = intFlag('--total', flags.total, 1, SHARD_PLAN_MAX_TOTAL)!;
          const index = flags.index === undefined ? undefined : intFlag('--index', flags.index, 1, total);
          return { total, index, config: flags.config, discover: flags.discover };
        },
        run: shardPlan,
        print: printPlan,
      }),
    );
}
