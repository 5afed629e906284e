/** A tiny leveled logger; TESTREPORT_LOG=silent|error|warn|info|debug (default info). */
const LEVELS = { silent: 0, error: 1, warn: 2, info: 3, debug: 4 } as const;
export type LogLevel = keyof typeof LEVELS;

export interface Logger {
  error(msg: string, extra?: unknown): void;
  warn(msg: string, extra?: unknown): void;
  info(msg: string, extra?: unknown): void;
  debug(msg: string, extra?: unknown): void;
}

export function createLogger(level: LogLevel = (process.env.TESTREPORT_LOG as LogLevel) ?? 'info'): Logger {
  const max = LEVELS[level] ?? LEVELS.info;
  const out = (l: Exclude<LogLevel, 'silent'>) => (msg: string, extra?: unknown) => {
    if (LEVELS[l] > max) return;
    const line = `[testreport] ${l}: ${msg}${extra === undefined ? '' : ' ' + (extra instanceof Error ? extra.message : JSON.stringify(extra))}`;
    (l === 'error' || l === 'warn' ? process.stderr : process.stdout).write(line + '\n');
  };
  return { error: out('error'), warn: out('warn'), info: out('info'), debug: out('debug') };
}
