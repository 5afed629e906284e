import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, beforeAll } from 'vitest';
import { startTestServer, type TestServer, type TestUser } from '@testreport/server/testing';
import { login } from '../commands/auth.js';
import { Context, type GlobalOptions } from '../lib/context.js';

/**
 * Test support for calling command functions in-process: a Context as the binary would build it,
 * but with its own config folder and working folder, none of the developer's TESTREPORT_* variables,
 * no terminal, and stdout/stderr kept for the test to read. Not part of the built CLI.
 */
export interface TestContext extends Context {
  /** Everything written to stdout / stderr so far (warnings go to stderr). */
  stdout(): string;
  stderr(): string;
  configDir: string;
}

export const tempDir = (prefix: string) => mkdtempSync(join(tmpdir(), `testreport-cli-${prefix}`));

/**
 * For a describe block that runs commands the way the binary's process does: a real server, and a
 * temp folder set as TESTREPORT_CONFIG_DIR (where upload keeps its state), restored afterwards.
 */
export function useServerAndConfigDir(prefix: string): { server: TestServer; dir: string } {
  const env = { server: undefined as unknown as TestServer, dir: '' };
  const before = process.env.TESTREPORT_CONFIG_DIR;
  beforeAll(async () => {
    env.server = await startTestServer();
    env.dir = tempDir(prefix);
    process.env.TESTREPORT_CONFIG_DIR = env.dir;
  });
  afterAll(async () => {
    await env.server?.close();
    if (env.dir) rmSync(env.dir, { recursive: true, force: true });
    if (before === undefined) delete process.env.TESTREPORT_CONFIG_DIR;
    else process.env.TESTREPORT_CONFIG_DIR = before;
  });
  return env;
}

function sink(): { stream: Writable; text: () => string } {
  let text = '';
  const stream = new Writable({
    write(chunk, _enc, done) {
      text += String(chunk);
      done();
    },
  });
  return { stream, text: () => text };
}

export function testContext(opts: GlobalOptions = {}, io: { configDir?: string; cwd?: string; env?: NodeJS.ProcessEnv } = {}): TestContext {
  const configDir = io.configDir ?? tempDir('cfg-');
  const out = sink();
  const err = sink();
  const ctx = new Context(opts, {
    env: { TESTREPORT_CONFIG_DIR: configDir, ...io.env },
    cwd: io.cwd ?? tempDir('cwd-'),
    stdout: out.stream,
    stderr: err.stream,
    interactive: false,
  });
  return Object.assign(ctx, { stdout: out.text, stderr: err.text, configDir });
}

/** A context that talks to the test server with its API key (the project it belongs to). */
export const keyContext = (srv: TestServer, opts: GlobalOptions = {}) => testContext({ url: srv.url, apiKey: srv.apiKey, ...opts });

/**
 * Signs `user` in the way `reporter login` does (the session stored in a fresh config folder) and
 * returns a context that uses that session: no API key anywhere.
 */
export async function sessionContext(srv: TestServer, user: Pick<TestUser, 'email' | 'password'> = srv.owner, opts: GlobalOptions = {}): Promise<TestContext> {
  const first = testContext({ url: srv.url });
  await login(first, { email: user.email, password: user.password });
  return testContext({ url: srv.url, ...opts }, { configDir: first.configDir });
}
