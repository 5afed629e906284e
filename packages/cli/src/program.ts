import { Command, Option } from 'commander';
import { registerAuth } from './commands/auth.js';
import { registerBaselines } from './commands/baselines.js';
import { registerConfig } from './commands/config.js';
import { registerErrors } from './commands/errors.js';
import { registerSearch } from './commands/search.js';
import { registerInsights } from './commands/insights.js';
import { registerFlaky } from './commands/flaky.js';
import { registerKeys } from './commands/keys.js';
import { registerProjects } from './commands/projects.js';
import { registerRuns } from './commands/runs.js';
import { registerSettings } from './commands/settings.js';
import { registerShardPlan } from './commands/shardPlan.js';
import { registerSummary } from './commands/summary.js';
import { registerTests } from './commands/tests.js';
import { registerUpload } from './commands/upload.js';
import { registerWebhooks } from './commands/webhooks.js';
import { VERSION } from './lib/version.js';

const ROOT_HELP = `
Configuration (highest wins): flags > environment (TESTREPORT_API_KEY, TESTREPORT_URL, TESTREPORT_PROJECT_ID)
> ./testreport.config.json > the user config file (~/.config/testreport/config.json). \`reporter config\` shows
what is in force and where each value came from. \`reporter login\` stores a session for account commands.

Examples:
  $ export TESTREPORT_URL=https://testreport.example.com TESTREPORT_API_KEY=trk_live_…
  $ reporter upload playwright-report/results.json        # upload a Playwright JSON report
  $ reporter upload test-results/ --tags nightly           # or a folder of JUnit XML
  $ reporter runs list --status failed
  $ npx playwright test $(npx reporter shard-plan --total 3 --index 1)   # balanced shards
  $ reporter summary --format markdown                     # the CI build's run: new failures, fixed, flaky
  $ reporter flaky list --min-score 0.2
  $ reporter insights --days 7 --branch main              # trends, slowest, failing, flaky, slower
  $ reporter login && reporter keys create --name "GitHub Actions"
  $ reporter runs list --json | jq '.data[0].id'

Exit codes: 0 success, 1 failure reported by the server or the upload, 2 usage or configuration error.`;

/**
 * Every command. Each `registerX` declares its subcommands, options and help examples, and wires each
 * one as `.action(command({ input, run, print }))` (lib/action.ts): `run` is the plain exported
 * function of `commands/<group>.ts` (typed input → result, also called directly by tests), `input`
 * parses the flags, `print` renders the result for people; with --json the result itself is printed.
 */
export function buildProgram(): Command {
  const program = new Command('reporter')
    .description('Upload test results to testreport and manage runs, flaky tests, projects, API keys and webhooks.')
    .version(VERSION, '-V, --version')
    .option('--json', 'print machine-readable JSON on stdout')
    .option('--url <url>', 'server address, e.g. https://testreport.example.com (TESTREPORT_URL)')
    .option('--api-key <key>', 'API key (TESTREPORT_API_KEY); prefer the variable: flags show up in process lists')
    .option('-p, --project <id>', 'project id (TESTREPORT_PROJECT_ID); defaults to the API key’s project')
    .option('-y, --yes', 'do not ask before deleting')
    .option('--allow-insecure-http', 'allow credentials over plain http:// to a non-loopback host (private networks only)')
    .option('--no-color', 'no colour (also NO_COLOR=1)')
    .addOption(new Option('--debug', 'print stack traces on errors'))
    .showSuggestionAfterError()
    .addHelpText('after', ROOT_HELP)
    .exitOverride();
  program.configureOutput({ outputError: (str, write) => write(str) });

  registerUpload(program);
  registerAuth(program);
  registerConfig(program);
  registerRuns(program);
  registerShardPlan(program);
  registerSummary(program);
  registerTests(program);
  registerFlaky(program);
  registerErrors(program);
  registerSearch(program);
  registerInsights(program);
  registerBaselines(program);
  registerKeys(program);
  registerWebhooks(program);
  registerProjects(program);
  registerSettings(program);
  // Subcommands inherit exitOverride, so a usage error anywhere ends with exit code 2.
  for (const cmd of program.commands) {
    cmd.exitOverride();
    for (const sub of cmd.commands) sub.exitOverride();
  }
  return program;
}
