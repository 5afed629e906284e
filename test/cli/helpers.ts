import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll } from 'vitest';
import { startTestServer, type TestServer } from '@testreport/server/testing';

export const ROOT = resolve(fileURLToPath(new URL('../..', import.meta.url)));
export const BIN = join(ROOT, 'packages/cli/dist/bin.js');

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
  /** stdout parsed as JSON (for --json calls), or undefined. */
  json: any;
}

export function assertBuilt(): void {
  if (!existsSync(BIN)) throw new Error(`${BIN} is missing: run \`npm run build\` before the CLI tests`);
}

/**
 * Runs the built `reporter` binary the way CI does: a child process with only the TESTREPORT_*
 * variables the test gives it (none inherited from the developer's shell) and its own config dir.
 */
export function cli(args: string[], env: Record<string, string | undefined> = {}, opts: { cwd?: string; input?: string } = {}): Promise<CliResult> {
  const childEnv: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('TESTREPORT_') && !/^(CI|GITHUB_ACTIONS|GITLAB_CI)$/.test(k)) childEnv[k] = v;
  Object.assign(childEnv, { NO_COLOR: '1' }, env);
  for (const [k, v] of Object.entries(childEnv)) if (v === undefined) delete childEnv[k];
  const child = spawn(process.execPath, [BIN, ...args], { cwd: opts.cwd ?? ROOT, env: childEnv });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  child.stdin.end(opts.input ?? '');
  return new Promise((res) =>
    child.on('close', (code) => {
      let json: unknown;
      try {
        json = stdout.trim() ? JSON.parse(stdout) : undefined;
      } catch {
        json = undefined;
      }
      res({ code: code ?? -1, stdout, stderr, json });
    }),
  );
}

export function tempDir(prefix = 'cli-'): string {
  return mkdtempSync(join(tmpdir(), `testreport-${prefix}`));
}

/**
 * For a test file that runs the built binaries against a real server: checks the build, starts the
 * server, and removes every folder `dir()` made once the file is done.
 */
export function useBuiltServer(prefix: string): { server: TestServer; dir(): string } {
  const dirs: string[] = [];
  const env = {
    server: undefined as unknown as TestServer,
    dir() {
      const d = tempDir(prefix);
      dirs.push(d);
      return d;
    },
  };
  beforeAll(async () => {
    assertBuilt();
    env.server = await startTestServer();
  });
  afterAll(async () => {
    await env.server?.close();
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });
  return env;
}

/**
 * The environment of a `playwright test` run of the reporter fixtures (test/reporter/fixtures) with
 * the built reporter against `server`, its outputs in `dir`. The CI's own variables that change the
 * reporter's behaviour are dropped unless `extra` sets them.
 */
export function fixtureRunEnv(dir: string, server: { url: string; apiKey: string }, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    TR_JSON_OUT: join(dir, 'report.json'),
    TR_SPOOL_DIR: join(dir, 'spool'),
    TR_PW_OUTPUT: join(dir, 'test-results'),
    TR_REPORTER: join(ROOT, 'packages/reporter/dist/index.js'),
    TESTREPORT_URL: server.url,
    TESTREPORT_API_KEY: server.apiKey,
    FORCE_COLOR: '0',
    ...extra,
  };
  for (const k of ['GITHUB_ACTIONS', 'TESTREPORT_SUMMARY']) if (!(k in extra)) delete env[k];
  return env;
}
