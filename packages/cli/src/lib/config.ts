import { join } from 'node:path';
import { readJsonFile } from './jsonFile.js';
import { PROJECT_CONFIG_FILE, userConfigPath } from './paths.js';
import { loadSession, type StoredSession } from './credentials.js';
import { UsageError } from './errors.js';

export const CONFIG_KEYS = ['url', 'apiKey', 'projectId'] as const;
export type ConfigKey = (typeof CONFIG_KEYS)[number];
export type ConfigSource = 'flag' | 'env' | 'project file' | 'user file' | 'default';

export interface Setting {
  value: string;
  source: ConfigSource;
  /** The flag, variable or file the value came from. */
  origin: string;
}

export interface ResolvedConfig {
  settings: Partial<Record<ConfigKey, Setting>> & { url: Setting };
  session?: StoredSession;
}

const ENV_NAMES: Record<ConfigKey, string> = { url: 'TESTREPORT_URL', apiKey: 'TESTREPORT_API_KEY', projectId: 'TESTREPORT_PROJECT_ID' };
const FLAG_NAMES: Record<ConfigKey, string> = { url: '--url', apiKey: '--api-key', projectId: '--project' };
export const DEFAULT_URL = 'http://localhost:4000';

function fileValues(path: string): Partial<Record<ConfigKey, string>> {
  const raw = readJsonFile<Record<string, unknown>>(path) ?? {};
  const out: Partial<Record<ConfigKey, string>> = {};
  for (const key of CONFIG_KEYS) {
    const v = raw[key];
    if (v === undefined || v === null || v === '') continue;
    if (typeof v !== 'string') throw new UsageError(`${path}: "${key}" must be a string`);
    out[key] = v;
  }
  return out;
}

/**
 * Precedence: flags > environment > ./testreport.config.json > the user config file. The stored
 * session (reporter login) is used when no API key is in force, and only for the server it was made on.
 */
export function resolveConfig(flags: Partial<Record<ConfigKey, string>>, opts: { env?: NodeJS.ProcessEnv; cwd?: string } = {}): ResolvedConfig {
  const env = opts.env ?? process.env;
  const projectPath = join(opts.cwd ?? process.cwd(), PROJECT_CONFIG_FILE);
  const userPath = userConfigPath(env);
  const project = fileValues(projectPath);
  const user = fileValues(userPath);
  const settings: Partial<Record<ConfigKey, Setting>> = {};
  for (const key of CONFIG_KEYS) {
    const flag = flags[key];
    const envValue = env[ENV_NAMES[key]];
    if (flag) settings[key] = { value: flag, source: 'flag', origin: FLAG_NAMES[key] };
    else if (envValue) settings[key] = { value: envValue, source: 'env', origin: ENV_NAMES[key] };
    else if (project[key]) settings[key] = { value: project[key]!, source: 'project file', origin: projectPath };
    else if (user[key]) settings[key] = { value: user[key]!, source: 'user file', origin: userPath };
  }
  const url = settings.url ?? { value: DEFAULT_URL, source: 'default' as const, origin: 'built-in default' };
  url.value = url.value.replace(/\/+$/, '');
  const stored = loadSession(env);
  // A session belongs to the server that issued it; sending its cookie elsewhere would leak it.
  const session = stored && stored.url.replace(/\/+$/, '') === url.value ? stored : undefined;
  // Without an explicit address, a stored session names the server to talk to.
  if (url.source === 'default' && stored) {
    return { settings: { ...settings, url: { value: stored.url, source: 'user file', origin: 'credentials (reporter login)' } }, session: stored };
  }
  return { settings: { ...settings, url }, session };
}

/** `trk_live_AB…wxyz` → `trk_live_****…wxyz`: enough to tell keys apart, never enough to use one. */
export function maskSecret(value: string): string {
  if (value.length <= 12) return '*'.repeat(value.length);
  const prefix = value.startsWith('trk_live_') ? 'trk_live_' : value.slice(0, 2);
  return `${prefix}${'*'.repeat(8)}${value.slice(-4)}`;
}
