import type { Command } from 'commander';
import { action } from '../lib/action.js';
import { CONFIG_KEYS, maskSecret, type ConfigKey } from '../lib/config.js';
import { UsageError } from '../lib/errors.js';
import { readJsonFile, writeJsonFile } from '../lib/jsonFile.js';
import { userConfigPath } from '../lib/paths.js';

function checkKey(key: string): ConfigKey {
  if (!(CONFIG_KEYS as readonly string[]).includes(key)) throw new UsageError(`unknown setting "${key}": use one of ${CONFIG_KEYS.join(', ')}`);
  return key as ConfigKey;
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
    .action(
      action(async (ctx) => {
        const { settings, session } = ctx.config;
        const rows = CONFIG_KEYS.map((key) => {
          const s = settings[key];
          const value = s ? (key === 'apiKey' ? maskSecret(s.value) : s.value) : null;
          return { key, value, source: s?.source ?? null, origin: s?.origin ?? null };
        });
        const sessionInfo = session ? { email: session.email, url: session.url, expiresAt: session.expiresAt ?? null } : null;
        if (ctx.out.json) return ctx.out.data({ settings: rows, session: sessionInfo });
        ctx.out.table(rows, [
          { header: 'SETTING', value: (r) => r.key },
          { header: 'VALUE', value: (r) => r.value },
          { header: 'SOURCE', value: (r) => r.source },
          { header: 'FROM', value: (r) => r.origin },
        ]);
        ctx.out.line();
        ctx.out.line(sessionInfo ? `session: ${sessionInfo.email} on ${sessionInfo.url} (until ${sessionInfo.expiresAt ?? '?'})` : 'session: none (reporter login)');
        const using = settings.apiKey ? 'the API key' : session ? 'the stored session' : 'nothing (no credentials)';
        ctx.out.line(`credentials used: ${using}`);
      }),
    );

  config
    .command('set')
    .description('store a setting in the user config file')
    .argument('<key>', CONFIG_KEYS.join(' | '))
    .argument('<value>')
    .action(
      action(async (ctx, key: string, value: string) => {
        const k = checkKey(key);
        const path = userConfigPath();
        const current = readJsonFile<Record<string, unknown>>(path) ?? {};
        current[k] = k === 'url' ? value.replace(/\/+$/, '') : value;
        writeJsonFile(path, current, { private: true });
        if (ctx.out.json) return ctx.out.data({ key: k, file: path });
        ctx.out.success(`${k} stored in ${path}`);
      }),
    );

  config
    .command('unset')
    .description('remove a setting from the user config file')
    .argument('<key>', CONFIG_KEYS.join(' | '))
    .action(
      action(async (ctx, key: string) => {
        const k = checkKey(key);
        const path = userConfigPath();
        const current = readJsonFile<Record<string, unknown>>(path) ?? {};
        delete current[k];
        writeJsonFile(path, current, { private: true });
        if (ctx.out.json) return ctx.out.data({ key: k, file: path, removed: true });
        ctx.out.success(`${k} removed from ${path}`);
      }),
    );
}
