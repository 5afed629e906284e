import type { Command } from 'commander';
import { command } from '../lib/action.js';
import { CONFIG_KEYS, maskSecret, type ConfigKey, type ConfigSource } from '../lib/config.js';
import type { Context } from '../lib/context.js';
import { UsageError } from '../lib/errors.js';
import { readJsonFile, writeJsonFile } from '../lib/jsonFile.js';
import type { Output } from '../lib/output.js';
import { userConfigPath } from '../lib/paths.js';

export interface ConfigShown {
  /** One row per setting, the API key masked; `source` null when nothing sets it. */
  settings: Array<{ key: ConfigKey; value: string | null; source: ConfigSource | null; origin: string | null }>;
  session: { email: string; url: string; expiresAt: string | null } | null;
}

function checkKey(key: string): ConfigKey {
  if (!(CONFIG_KEYS as readonly string[]).includes(key)) throw new UsageError(`unknown setting "${key}": use one of ${CONFIG_KEYS.join(', ')}`);
  return key as ConfigKey;
}

/** The configuration in force, each value with where it came from, and the stored session. */
export async function showConfig(ctx: Context): Promise<ConfigShown> {
  const { settings, session } = ctx.config;
  const rows = CONFIG_KEYS.map((key) => {
    const s = settings[key];
    const value = s ? (key === 'apiKey' ? maskSecret(s.value) : s.value) : null;
    return { key, value, source: s?.source ?? null, origin: s?.origin ?? null };
  });
  return { settings: rows, session: session ? { email: session.email, url: session.url, expiresAt: session.expiresAt ?? null } : null };
}

/** Stores a setting in the user config file (0600: it may hold an API key). */
export async function setConfig(ctx: Context, input: { key: ConfigKey; value: string }): Promise<{ key: ConfigKey; file: string }> {
  const path = userConfigPath(ctx.env);
  const current = readJsonFile<Record<string, unknown>>(path) ?? {};
  current[input.key] = input.key === 'url' ? input.value.replace(/\/+$/, '') : input.value;
  writeJsonFile(path, current, { private: true });
  return { key: input.key, file: path };
}

export async function unsetConfig(ctx: Context, input: { key: ConfigKey }): Promise<{ key: ConfigKey; file: string; removed: true }> {
  const path = userConfigPath(ctx.env);
  const current = readJsonFile<Record<string, unknown>>(path) ?? {};
  delete current[input.key];
  writeJsonFile(path, current, { private: true });
  return { key: input.key, file: path, removed: true };
}

function printConfig(out: Output, { settings, session }: ConfigShown): void {
  out.table(settings, [
    { header: 'SETTING', value: (r) => r.key },
    { header: 'VALUE', value: (r) => r.value },
    { header: 'SOURCE', value: (r) => r.source },
    { header: 'FROM', value: (r) => r.origin },
  ]);
  out.line();
  out.line(session ? `session: ${session.email} on ${session.url} (until ${session.expiresAt ?? '?'})` : 'session: none (reporter login)');
  const hasKey = settings.some((s) => s.key === 'apiKey' && s.value !== null);
  const using = hasKey ? 'the API key' : session ? 'the stored session' : 'nothing (no credentials)';
  out.line(`credentials used: ${using}`);
}

export function registerConfig(program: Command): void {
  const config = program
    .command('config')
    .summary('show the configuration in force and where each value came from')
    .description(
      'Shows url, apiKey (masked) and projectId with their source: flag, env (TESTREPORT_URL, TESTREPORT_API_KEY,\n' +
        'TESTREPORT_PROJECT_ID), project file (./testreport.config.json) or user file (~/.config/testreport/config.json),\n' +
        'and the stored session. `config set|unset` edit the user file.',
    )
    .addHelpText('after', `
Examples:
  $ reporter config
  $ reporter config set url https://testreport.example.com
  $ reporter config set projectId 0193…
  $ reporter config unset projectId

./testreport.config.json (commit it; keep keys out of it):
  { "url": "https://testreport.example.com", "projectId": "0193…" }`)
    .action(command({ run: showConfig, print: printConfig }));

  config
    .command('set')
    .description('store a setting in the user config file')
    .argument('<key>', CONFIG_KEYS.join(' | '))
    .argument('<value>')
    .action(
      command({
        input: ([key, value]) => ({ key: checkKey(key), value }),
        run: setConfig,
        print: (out, r) => out.success(`${r.key} stored in ${r.file}`),
      }),
    );

  config
    .command('unset')
    .description('remove a setting from the user config file')
    .argument('<key>', CONFIG_KEYS.join(' | '))
    .action(
      command({
        input: ([key]) => ({ key: checkKey(key) }),
        run: unsetConfig,
        print: (out, r) => out.success(`${r.key} removed from ${r.file}`),
      }),
    );
}
