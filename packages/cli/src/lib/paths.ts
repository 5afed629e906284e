import { homedir } from 'node:os';
import { join } from 'node:path';

/** `$TESTREPORT_CONFIG_DIR`, else `$XDG_CONFIG_HOME/testreport`, else `~/.config/testreport`. */
export function configDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.TESTREPORT_CONFIG_DIR) return env.TESTREPORT_CONFIG_DIR;
  const base = env.XDG_CONFIG_HOME || join(homedir(), '.config');
  return join(base, 'testreport');
}

export const credentialsPath = (env?: NodeJS.ProcessEnv) => join(configDir(env), 'credentials.json');
export const userConfigPath = (env?: NodeJS.ProcessEnv) => join(configDir(env), 'config.json');
export const PROJECT_CONFIG_FILE = 'testreport.config.json';
