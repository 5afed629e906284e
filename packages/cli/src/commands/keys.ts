import type { Command } from 'commander';
import { action } from '../lib/action.js';
import { UsageError } from '../lib/errors.js';
import { when } from '../lib/flags.js';

export function registerKeys(program: Command): void {
  const keys = program.command('keys').summary('API keys of the project (creating and changing keys needs `reporter login`)').addHelpText('after', `
Examples:
  $ reporter keys list
  $ reporter keys create --name "GitHub Actions" --expires 2027-01-01T00:00:00Z
  $ reporter keys disable 0193b7c4-…
  $ reporter keys enable 0193b7c4-…
  $ reporter keys delete 0193b7c4-… --yes`);

  keys
    .command('list')
    .description('list keys (values masked)')
    .action(
      action(async (ctx) => {
        const client = ctx.client();
        const res = await client.apiKeys.list({ projectId: await ctx.projectId(client) });
        if (ctx.out.json) return ctx.out.data(res);
        ctx.out.table(res.data, [
          { header: 'ID', value: (k) => k.id },
          { header: 'NAME', value: (k) => k.name, max: 40 },
          { header: 'KEY', value: (k) => k.maskedKey },
          { header: 'ACTIVE', value: (k) => k.isActive, color: (t, k) => (k.isActive ? ctx.out.c.green(t) : ctx.out.c.dim(t)) },
          { header: 'EXPIRES', value: (k) => when(k.expiresAt) ?? 'never' },
          { header: 'LAST USED', value: (k) => when(k.lastUsedAt) },
          { header: 'CREATED', value: (k) => when(k.createdAt) },
        ], 'No API keys.');
      }),
    );

  keys
    .command('create')
    .description('create a key; its value is printed once and cannot be shown again')
    .requiredOption('--name <name>', 'what the key is for, e.g. "GitHub Actions"')
    .option('--expires <timestamp>', 'ISO 8601 expiry, e.g. 2027-01-01T00:00:00Z (default: never)')
    .action(
      action(async (ctx, flags: { name: string; expires?: string }) => {
        if (flags.expires !== undefined && Number.isNaN(Date.parse(flags.expires))) throw new UsageError(`--expires must be an ISO 8601 timestamp, got "${flags.expires}"`);
        const client = ctx.client('user');
        const res = await client.apiKeys.create({ projectId: await ctx.projectId(client), name: flags.name, ...(flags.expires ? { expiresAt: flags.expires } : {}) });
        if (ctx.out.json) return ctx.out.data(res);
        ctx.out.success(`API key "${res.name}" created (${res.id}) for project ${res.projectId}`);
        ctx.out.line();
        ctx.out.line(`  ${ctx.out.c.bold(res.key)}`);
        ctx.out.line();
        ctx.out.warn('store this key now (e.g. as the TESTREPORT_API_KEY secret of your CI): it is shown only once.');
      }),
    );

  for (const [name, isActive] of [['disable', false], ['enable', true]] as const) {
    keys
      .command(name)
      .description(isActive ? 'accept the key again' : 'reject the key on every call until enabled again')
      .argument('<keyId>')
      .action(
        action(async (ctx, id: string) => {
          const res = await ctx.client('user').apiKeys.update(id, { isActive });
          if (ctx.out.json) return ctx.out.data(res);
          ctx.out.success(`API key ${id} ${isActive ? 'enabled' : 'disabled'}`);
        }),
      );
  }

  keys
    .command('delete')
    .description('delete a key for good (asks first; --yes to skip)')
    .argument('<keyId>')
    .action(
      action(async (ctx, id: string) => {
        await ctx.confirm(`Delete API key ${id}`);
        const res = await ctx.client('user').apiKeys.delete(id);
        if (ctx.out.json) return ctx.out.data(res);
        ctx.out.success(`API key ${id} deleted`);
      }),
    );
}
