import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { rmSync } from 'node:fs';
import { afterAll, beforeAll } from 'vitest';
import { ROOT, tempDir } from '../cli/helpers.js';

export const SERVER_BIN = join(ROOT, 'packages/server/dist/bin.js');

/** Only the TESTREPORT_* variables a test sets reach the server: none from the developer's shell. */
function serverEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('TESTREPORT_')) env[k] = v;
  return { ...env, TESTREPORT_RATE_LIMITS: 'off', TESTREPORT_LOG: 'silent', ...extra };
}

export function assertServerBuilt(): void {
  if (!existsSync(SERVER_BIN)) throw new Error(`${SERVER_BIN} is missing: run \`npm run build\` before the crash tests`);
}

/** `reporter-server init --json` on `dataDir`: the owner, team, project and one API key. */
export function initDataDir(dataDir: string, env: Record<string, string> = {}): { projectId: string; apiKey: string } {
  const r = spawnSync(process.execPath, [SERVER_BIN, 'init', '--data-dir', dataDir, '--email', 'owner@example.test', '--password', 'crash-test-pw', '--json'], {
    env: serverEnv(env),
    encoding: 'utf8',
  });
  if (r.status !== 0) throw new Error(`init failed: ${r.stderr}`);
  return JSON.parse(r.stdout) as { projectId: string; apiKey: string };
}

export interface ServerProcess {
  url: string;
  child: ChildProcess;
  /** SIGKILL: no shutdown handler runs, exactly like a crash or an OOM kill. */
  crash(): Promise<void>;
  stop(): Promise<void>;
}

/** The real server binary on `dataDir`, port 0; resolves once it listens. */
export function startServerProcess(dataDir: string, env: Record<string, string> = {}): Promise<ServerProcess> {
  const child = spawn(process.execPath, [SERVER_BIN, 'serve', '--port', '0', '--data-dir', dataDir, '--no-first-run'], { env: serverEnv(env), stdio: ['ignore', 'pipe', 'pipe'] });
  const exited = new Promise<void>((res) => child.once('exit', () => res()));
  const kill = async (signal: NodeJS.Signals) => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    await exited;
  };
  return new Promise((resolve, reject) => {
    let out = '';
    let err = '';
    child.stderr!.on('data', (d) => (err += d));
    child.stdout!.on('data', (d) => {
      out += d;
      const m = /listening on (\S+)/.exec(out);
      if (m) resolve({ url: m[1]!, child, crash: () => kill('SIGKILL'), stop: () => kill('SIGTERM') });
    });
    child.once('exit', (code) => reject(new Error(`server exited (${code}) before listening: ${err}`)));
  });
}

export interface CrashFixture {
  dataDir: string;
  auth: { projectId: string; apiKey: string };
  /** The server currently running on `dataDir`, stopped after the file's tests. */
  server: ServerProcess | undefined;
}

/** A data dir initialised once for the file's tests, and removed (server stopped) after them. */
export function useCrashDataDir(prefix: string): CrashFixture {
  const f = { server: undefined } as CrashFixture;
  beforeAll(() => {
    assertServerBuilt();
    f.dataDir = tempDir(prefix);
    f.auth = initDataDir(f.dataDir);
  });
  afterAll(async () => {
    await f.server?.stop();
    rmSync(f.dataDir, { recursive: true, force: true });
  });
  return f;
}
