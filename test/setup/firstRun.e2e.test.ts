import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// What a new user does after `npm start`: sign in with the credentials the first run printed.
const SERVER_BIN = resolve(fileURLToPath(new URL('../..', import.meta.url)), 'packages/server/dist/bin.js');

let child: ChildProcess;
let dataDir: string;
let url: string;
let stdout = '';

beforeAll(async () => {
  if (!existsSync(SERVER_BIN)) throw new Error(`${SERVER_BIN} is missing: run \`npm run build\` before this test`);
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('TESTREPORT_')) env[k] = v;
  dataDir = mkdtempSync(join(tmpdir(), 'testreport-first-run-'));
  child = spawn(process.execPath, [SERVER_BIN, 'serve', '--port', '0', '--data-dir', dataDir], { env: { ...env, TESTREPORT_LOG: 'error' } });
  url = await new Promise<string>((done, fail) => {
    child.stdout!.on('data', (d) => {
      stdout += d;
      const m = /testreport listening on (\S+)/.exec(stdout);
      if (m) done(m[1]);
    });
    child.once('exit', (code) => fail(new Error(`server exited ${code}`)));
  });
});

afterAll(async () => {
  if (child && child.exitCode === null) {
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    await exited;
  }
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

const printed = () => {
  const m = /^ +sign in +(\S+) \/ (\S+)$/m.exec(stdout);
  expect(m, stdout).not.toBeNull();
  return { email: m![1], password: m![2] };
};

describe('the first run’s printed credentials', () => {
  it('sign in to the dashboard', async () => {
    const { email, password } = printed();
    const res = await fetch(`${url}/signin`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: new URL(url).origin },
      body: new URLSearchParams({ next: '/', email, password }).toString(),
    });
    expect(res.status).toBe(303);
    expect(res.headers.get('set-cookie')).toMatch(/testreport_session=/);
  });

  it('sign in through the API (what `reporter auth login` calls)', async () => {
    const { email, password } = printed();
    const res = await fetch(`${url}/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email, password }) });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { user: { email: string } }).user.email).toBe(email);
  });
});

describe('TESTREPORT_FIRST_RUN=off (the --no-first-run of images, where flags are awkward)', () => {
  it('starts on an empty database without creating or printing anything', async () => {
    const env: NodeJS.ProcessEnv = {};
    for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('TESTREPORT_')) env[k] = v;
    const dir = mkdtempSync(join(tmpdir(), 'testreport-no-first-run-'));
    const server = spawn(process.execPath, [SERVER_BIN, 'serve', '--port', '0', '--data-dir', dir], { env: { ...env, TESTREPORT_LOG: 'error', TESTREPORT_FIRST_RUN: 'off' } });
    try {
      let out = '';
      const base = await new Promise<string>((done, fail) => {
        server.stdout!.on('data', (d) => {
          out += d;
          const m = /testreport listening on (\S+)/.exec(out);
          if (m) done(m[1]);
        });
        server.once('exit', (code) => fail(new Error(`server exited ${code}`)));
      });
      expect(out).not.toMatch(/First run/);
      const res = await fetch(`${base}/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'owner@localhost', password: 'x'.repeat(16) }) });
      expect(res.status).toBe(401);
    } finally {
      const exited = new Promise((r) => server.once('exit', r));
      server.kill('SIGTERM');
      await exited;
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
