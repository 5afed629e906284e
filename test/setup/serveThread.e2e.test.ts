import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

// `reporter-server serve` runs the server in a worker thread sized for its batches
// (packages/server/src/serveThread.ts), unless the operator sized V8's young generation: either
// way signals must stop it cleanly, a failure must exit non-zero with its message, and the
// process must be the server (kill, CPU and the process id stay its own).
const SERVER_BIN = resolve(fileURLToPath(new URL('../..', import.meta.url)), 'packages/server/bin/reporter-server.js');
const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

function serve(args: string[], env: NodeJS.ProcessEnv = {}) {
  const base: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('TESTREPORT_') && k !== 'NODE_OPTIONS') base[k] = v;
  const dataDir = mkdtempSync(join(tmpdir(), 'testreport-thread-'));
  dirs.push(dataDir);
  const child = spawn(process.execPath, [SERVER_BIN, 'serve', '--port', '0', '--data-dir', dataDir, '--no-first-run', ...args], { env: { ...base, TESTREPORT_LOG: 'error', ...env } });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  const listening = new Promise<string>((done, fail) => {
    child.stdout.on('data', () => {
      const m = /testreport listening on (\S+)/.exec(stdout);
      if (m) done(m[1]!);
    });
    void exited.then((code) => fail(new Error(`server exited ${code}: ${stderr}`)));
  });
  return { child, listening, exited, output: () => ({ stdout, stderr }) };
}

const threads = (pid: number) => Number(/^Threads:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]);

describe('reporter-server serve in its own thread', () => {
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    it(`answers, then stops cleanly on ${signal} with exit code 0`, async () => {
      const s = serve([]);
      const url = await s.listening;
      expect((await fetch(`${url}/healthz`)).status).toBe(200);
      s.child.kill(signal);
      expect(await s.exited).toBe(0);
      expect(s.output().stderr).toContain(`received ${signal}, shutting down`);
    });
  }

  it('runs in the main thread when the operator sized the young generation, and stops the same way', async () => {
    const plain = serve([]);
    await plain.listening;
    const sized = serve([], { NODE_OPTIONS: '--max-semi-space-size=32' });
    await sized.listening;
    // The worker adds V8's threads of a second isolate to the process.
    expect(threads(sized.child.pid!)).toBeLessThan(threads(plain.child.pid!));
    for (const s of [plain, sized]) {
      s.child.kill('SIGTERM');
      expect(await s.exited).toBe(0);
    }
  });

  it('exits 1 with the reason when the server cannot start', async () => {
    const s = serve(['--tls-cert', '/nonexistent/cert.pem', '--tls-key', '/nonexistent/key.pem']);
    await expect(s.listening).rejects.toThrow();
    expect(await s.exited).toBe(1);
    expect(s.output().stderr).toMatch(/error: .*cert/i);
  });
});
