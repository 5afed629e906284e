import type { ResponseOf, SettingsUpdate } from '@testreport/contract';
import type { Command } from 'commander';
import { command } from '../lib/action.js';
import type { Context } from '../lib/context.js';
import { UsageError } from '../lib/errors.js';
import { boolFlag, intFlag, numberFlag, when } from '../lib/flags.js';
import type { Output } from '../lib/output.js';

type Settings = ResponseOf<'projects.getSettings'>;

/** Settings of the project in force: retention, flakiness threshold, auto-quarantine. */
export async function getSettings(ctx: Context): Promise<Settings> {
  const client = ctx.client();
  return client.projects.getSettings(await ctx.projectId(client));
}

/** Changes only the given settings, with the signed-in user's session (keys may read but not change them). */
export async function updateSettings(ctx: Context, input: SettingsUpdate): Promise<Settings> {
  if (Object.keys(input).length === 0) throw new UsageError('nothing to change: pass --retention-days, --flakiness-threshold, --auto-quarantine, --auto-quarantine-min-runs, --auto-release-after, --default-branch or --shard-timeout');
  const client = ctx.client('user');
  return client.projects.updateSettings(await ctx.projectId(client), input);
}

function printSettings(out: Output, s: Settings): void {
  out.fields([
    ['project', s.projectId],
    ['retention', `${s.dataRetentionDays} days`],
    ['flakiness threshold', s.flakinessThreshold],
    ['auto-quarantine', s.autoQuarantineEnabled ? `on (after ${s.autoQuarantineMinRuns} results)` : 'off'],
    ['auto-release', s.autoReleaseAfterPasses > 0 ? `after ${s.autoReleaseAfterPasses} clean passes on ${s.defaultBranch}` : 'off'],
    ['default branch', s.defaultBranch],
    ['shard timeout', `${s.shardTimeoutMinutes} minutes`],
    ['updated', when(s.updatedAt)],
  ]);
}

export function registerSettings(program: Command): void {
  const settings = program.command('settings').summary('project settings: retention, flakiness threshold, auto-quarantine').addHelpText('after', `
Examples:
  $ reporter settings get
  $ reporter settings set --retention-days 90
  $ reporter settings set --flakiness-threshold 0.2 --auto-quarantine on
  $ reporter settings set --auto-release-after 10 --auto-quarantine-min-runs 5
  $ reporter settings set --shard-timeout 60       # a CI build's run waits an hour for silent shards`);

  settings.command('get').description('show the settings of the project').action(command({ run: getSettings, print: printSettings }));

  settings
    .command('set')
    .description('change settings; only the given ones change (admins and owners; needs `reporter login`)')
    .option('--retention-days <days>', 'keep runs this many days (1-3650)')
    .option('--flakiness-threshold <score>', 'score (0-1) at which auto-quarantine applies')
    .option('--auto-quarantine <on|off>', 'quarantine cases over the threshold when a run finishes')
    .option('--auto-quarantine-min-runs <n>', 'results a score needs before auto-quarantine trusts it; failing this many in a row on the default branch = broken, never auto-quarantined (2-50)')
    .option('--auto-release-after <passes>', 'release a quarantined case after this many clean passes in a row on the default branch; 0 = off (0-50)')
    .option('--default-branch <name>', 'branch run summaries compare with (new failures, fixed)')
    .option('--shard-timeout <minutes>', 'a CI build\'s run with no shard activity this long finishes with the shards it has (1-1440)')
    .action(
      command({
        input: (_args, flags: { retentionDays?: string; flakinessThreshold?: string; autoQuarantine?: string; autoQuarantineMinRuns?: string; autoReleaseAfter?: string; defaultBranch?: string; shardTimeout?: string }) => {
          const body: SettingsUpdate = {};
          const days = intFlag('--retention-days', flags.retentionDays, 1, 3650);
          const threshold = numberFlag('--flakiness-threshold', flags.flakinessThreshold, 0, 1);
          const auto = boolFlag('--auto-quarantine', flags.autoQuarantine);
          if (days !== undefined) body.dataRetentionDays = days;
          if (threshold !== undefined) body.flakinessThreshold = threshold;
          if (auto !== undefined) body.autoQuarantineEnabled = auto;
          if (flags.defaultBranch !== undefined) body.defaultBranch = flags.defaultBranch;
          const shardTimeout = intFlag('--shard-timeout', flags.shardTimeout, 1, 1440);
          if (shardTimeout !== undefined) body.shardTimeoutMinutes = shardTimeout;
          const minRuns = intFlag('--auto-quarantine-min-runs', flags.autoQuarantineMinRuns, 2, 50);
          if (minRuns !== undefined) body.autoQuarantineMinRuns = minRuns;
          const release = intFlag('--auto-release-after', flags.autoReleaseAfter, 0, 50);
          if (release !== undefined) body.autoReleaseAfterPasses = release;
          return body;
        },
        run: updateSettings,
        print: printSettings,
      }),
    );
}
