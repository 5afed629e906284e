import type { Project } from '@testreport/contract';
import type { Command } from 'commander';
import { action } from '../lib/action.js';
import { UsageError } from '../lib/errors.js';
import { when } from '../lib/flags.js';
import type { Context } from '../lib/context.js';

/** The team to work in: --team, else the only team of the user (or the API key's project's team). */
async function teamsOf(ctx: Context, team?: string): Promise<string[]> {
  if (team) return [team];
  const me = await ctx.client().me();
  if (me.type === 'apiKey') return [me.project.teamId];
  return me.teams.map((t) => t.id);
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
    .action(
      action(async (ctx, flags: { team?: string }) => {
        const client = ctx.client();
        const data: Project[] = [];
        for (const teamId of await teamsOf(ctx, flags.team)) data.push(...(await client.projects.list({ teamId })).data);
        if (ctx.out.json) return ctx.out.data({ data });
        ctx.out.table(data, [
          { header: 'ID', value: (p) => p.id },
          { header: 'NAME', value: (p) => p.name, max: 40 },
          { header: 'TEAM', value: (p) => p.teamId },
          { header: 'CREATED', value: (p) => when(p.createdAt) },
        ], 'No projects.');
      }),
    );

  projects
    .command('create')
    .description('create a project in a team (needs `reporter login`)')
    .requiredOption('--name <name>', 'project name')
    .option('--team <teamId>', 'team to create it in (default: your only team)')
    .action(
      action(async (ctx, flags: { name: string; team?: string }) => {
        const client = ctx.client('user');
        const teams = await teamsOf(ctx, flags.team);
        if (teams.length !== 1) throw new UsageError(`you are in ${teams.length} teams: pass --team <teamId> (\`reporter whoami\` lists them)`);
        const res = await client.projects.create({ name: flags.name, teamId: teams[0] });
        if (ctx.out.json) return ctx.out.data(res);
        ctx.out.success(`Project "${res.name}" created: ${res.id}`);
      }),
    );

  projects
    .command('get')
    .description('show a project')
    .argument('[projectId]', 'default: --project / TESTREPORT_PROJECT_ID / the API key’s project')
    .action(
      action(async (ctx, id: string | undefined) => {
        const client = ctx.client();
        const p = await client.projects.get(id ?? (await ctx.projectId(client)));
        if (ctx.out.json) return ctx.out.data(p);
        ctx.out.fields([
          ['id', p.id],
          ['name', p.name],
          ['team', p.teamId],
          ['created', when(p.createdAt)],
          ['updated', when(p.updatedAt)],
        ]);
      }),
    );

  projects
    .command('delete')
    .description('delete a project with its runs, tests, artifacts, keys and webhooks (asks first; --yes to skip)')
    .argument('<projectId>')
    .action(
      action(async (ctx, id: string) => {
        await ctx.confirm(`Delete project ${id} with all its runs, tests, artifacts, API keys and webhooks`);
        const res = await ctx.client('user').projects.delete(id);
        if (ctx.out.json) return ctx.out.data(res);
        ctx.out.success(res.message || `Project ${id} deleted`);
      }),
    );
}
