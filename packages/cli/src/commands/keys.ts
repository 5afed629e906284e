import type { BodyOf, ResponseOf } from '@testreport/contract';
import type { Command } from 'commander';
import { command } from '../lib/action.js';
import type { Context } from '../lib/context.js';
import { UsageError } from '../lib/errors.js';
import { when } from '../lib/flags.js';
import type { Output } from '../lib/output.js';

/** Keys of the project in force, values masked. */
export async function listKeys(ctx: Context): Promise<ResponseOf<'apiKeys.list'>> {
  const client = ctx.client();
  return client.apiKeys.list({ projectId: await ctx.projectId(client) });
}

/** Creates a key with the signed-in user's session; the result holds the key's value, shown only this once. */
export async function createKey(ctx: Context, input: Omit<BodyOf<'apiKeys.create'>, 'projectId'>): Promise<ResponseOf<'apiKeys.create'>> {
  const client = ctx.client('user');
  return client.apiKeys.create({ projectId: await ctx.projectId(client), ...input });
}

/** A disabled key is refused on every call until enabled again. */
export async function setKeyActive(ctx: Context, input: { keyId: string; isActive: boolean }): Promise<ResponseOf<'apiKeys.update'>> {
  return ctx.client('user').apiKeys.update(input.keyId, { isActive: input.isActive });
}

export async function deleteKey(ctx: Context, input: { keyId: string }): Promise<ResponseOf<'apiKeys.delete'>> {
  await ctx.confirm(`Delete API key ${input.keyId}`);
  return ctx.client('user').apiKeys.delete(input.keyId);
}

function printKeyList(out: Output, res: ResponseOf<'apiKeys.list'>): void {
  out.table(res.data, [
    { header: 'ID', value: (k) => k.id },
    { header: 'NAME', value: (k) => k.name, max: 40 },
    { header: 'KEY', value: (k) => k.maskedKey },
    { header: 'ACTIVE', value: (k) => k.isActive, color: (t, k) => (k.isActive ? out.c.green(t) : out.c.dim(t)) },
    { header: 'EXPIRES', value: (k) => when(k.expiresAt) ?? 'never' },
    { header: 'LAST USED', value: (k) => when(k.lastUsedAt) },
    { header: 'CREATED', value: (k) => when(k.createdAt) },
  ], 'No API keys.');
}

function printCreatedKey(out: Output, res: ResponseOf<'apiKeys.create'>): void {
  out.success(`API key "${res.name}" created (${res.id}) for project ${res.projectId}`);
  out.line();
  out.line(`  ${out.c.bold(res.key)}`);
  out.line();
  out.warn('store this key now (e.g. as the TESTREPORT_API_KEY secret of your CI): it is shown only once.');
}

export function registerKeys(program: Command): void {
  const keys = program.command('keys').summary('API keys of the project (creating and changing keys needs `reporter login`)').addHelpText('after', `
Examples:
  $ reporter keys list
  $ reporter keys create --name "GitHub Actions" --expires 2027-01-01T00:00:00Z
  $ reporter keys disable 0193b7c4-…
  $ reporter keys enable 0193b7c4-…
  $ reporter keys delete 0193b7c4-… --yes`);

  keys.command('list').description('list keys (values masked)').action(command({ run: listKeys, print: printKeyList }));

  keys
    .command('create')
    .description('create a key; its value is printed once and cannot be shown again')
    .requiredOption('--name <name>', 'what the key is for, e.g. "GitHub Actions"')
    .option('--expires <timestamp>', 'ISO 8601 expiry, e.g. 2027-01-01T00:00:00Z (default: never)')
    .action(
      command({
        input: (_args, flags: { name: string; expires?: string }) => {
          if (flags.expires !== undefined && Number.isNaN(Date.parse(flags.expires))) throw new UsageError(`--expires must be an ISO 8601 timestamp, got "${flags.expires}"`);
          return { name: flags.name, ...(flags.expires ? { expiresAt: flags.expires } : {}) };
        },
        run: createKey,
        print: printCreatedKey,
      }),
    );

  for (const [name, isActive] of [['disable', false], ['enable', true]] as const) {
    keys
      .command(name)
      .description(isActive ? 'accept the key again' : 'reject the key on every call until enabled again')
      .argument('<keyId>')
      .action(
        command({
          input: ([keyId]) => ({ keyId, isActive }),
          run: setKeyActive,
          print: (out, _res, { keyId }) => out.success(`API key ${keyId} ${isActive ? 'enabled' : 'disabled'}`),
        }),
      );
  }

  keys
    .command('delete')
    .description('delete a key for good (asks first; --yes to skip)')
    .argument('<keyId>')
    .action(command({ input: ([keyId]) => ({ keyId }), run: deleteKey, print: (out, _res, { keyId }) => out.success(`API key ${keyId} deleted`) }));
}
