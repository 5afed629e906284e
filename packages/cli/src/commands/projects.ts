import type { Project, ResponseOf } from '@testreport/contract';
import type { Command } from 'commander';
import { command } from '../lib/action.js';
import type { Context } from '../lib/context.js';
import { UsageError } from '../lib/errors.js';
import { when } from '../lib/flags.js';
import type { Output } from '../lib/output.js';

/** The teams to work in: the given one, else every team of the user (or the API key's project's team). */
async function teamsOf(ctx: Context, teamId?: string): Promise<string[]> {
  if (teamId) return [teamId];
  const me = await ctx.client().me();
  if (me.type === 'apiKey') return [me.project.teamId];
  return me.teams.map((t) => t.id);
}

/** Projects of every team the caller is in, or of one team. */
export async function listProjects(ctx: Context, input: { teamId?: string } = {}): Promise<{ data: Project[] }> {
  const client = ctx.client();
  const data: Project[] = [];
  for (const teamId of await teamsOf(ctx, input.teamId)) data.push(...(await client.projects.list({ teamId })).data);
  return { data };
}

/** Creates a project with the signed-in user's session, in the given team or the user's only team. */
export async function createProject(ctx: Context, input: { name: string; teamId?: string }): Promise<ResponseOf<'projects.create'>> {
  const client = ctx.client('user');
  const teams = await teamsOf(ctx, input.teamId);
  if (teams.length !== 1) throw new UsageError(`you are in ${teams.length} teams: pass --team <teamId> (\`reporter whoami\` lists them)`);
  return client.projects.create({ name: input.name, teamId: teams[0] });
}

/** One project: the given one, else the project in force. */
export async function getProject(ctx: Context, input: { projectId?: string } = {}): Promise<ResponseOf<'projects.get'>> {
  const client = ctx.client();
  return client.projects.get(input.projectId ?? (await ctx.projectId(client)));
}

/** Asks first (or needs --yes), then deletes the project with everything it owns. */
export async function deleteProject(ctx: Context, input: { projectId: string }): Promise<ResponseOf<'projects.delete'>> {
  await ctx.confirm(`Delete project ${input.projectId} with all its runs, tests, artifacts, API keys and webhooks`);
  return ctx.client('user').projects.delete(input.projectId);
}

function printProjectList(out: Output, res: { data: Project[] }): void {
  out.table(res.data, [
    { header: 'ID', value: (p) => p.id },
    { header: 'NAME', value: (p) => p.name, max: 40 },
    { header: 'TEAM', value: (p) => p.teamId },
    { header: 'CREATED', value: (p) => when(p.createdAt) },
  ], 'No projects.');
}

function printProject(out: Output, p: ResponseOf<'projects.get'>): void {
  out.fields([
    ['id', p.id],
    ['name', p.name],
    ['team', p.teamId],
    ['created', when(p.createdAt)],
    ['updated', when(p.updatedAt)],
  ]);
}

export function registerProjects(program: Command): void {
  const projects = program.command('projects').summary('projects of your teams').addHelpText('after', `
Examples:
  $ reporter projects list
  $ reporter projects create --name "web-app" --team 0193b7c0-…
  $ reporter projects get 0193b7c1-…
  $ reporter projects delete 0193b7c1-… --yes`);

  projects
    .command('list')
    .description('list projects of every team you are in (or of --team)')
    .option('--team <teamId>', 'only this team')
    .action(command({ input: (_args, flags: { team?: string }) => ({ teamId: flags.team }), run: listProjects, print: printProjectList }));

  projects
    .command('create')
    .description('create a project in a team (needs `reporter login`)')
    .requiredOption('--name <name>', 'project name')
    .option('--team <teamId>', 'team to create it in (default: your only team)')
    .action(
      command({
        input: (_args, flags: { name: string; team?: string }) => ({ name: flags.name, teamId: flags.team }),
        run: createProject,
        print: (out, res) => out.success(`Project "${res.name}" created: ${res.id}`),
      }),
    );

  projects
    .command('get')
    .description('show a project')
    .argument('[projectId]', 'default: --project / TESTREPORT_PROJECT_ID / the API key’s project')
    .action(command({ input: ([projectId]) => ({ projectId }), run: getProject, print: printProject }));

  projects
    .command('delete')
    .description('delete a project with its runs, tests, artifacts, keys and webhooks (asks first; --yes to skip)')
    .argument('<projectId>')
    .action(
      command({
        input: ([projectId]) => ({ projectId }),
        run: deleteProject,
        print: (out, res, { projectId }) => out.success(res.message || `Project ${projectId} deleted`),
      }),
    );
}
