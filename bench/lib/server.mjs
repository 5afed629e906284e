// Starts the real server in a child process, the way an operator does (docs/decisions.md §2).
import { spawn, execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = fileURLToPath(new URL('../../', import.meta.url));
export const serverBin = join(root, 'packages/server/dist/bin.js');
export const cliBin = join(root, 'packages/cli/dist/bin.js');

export function tempDir(prefix) {
  return mkdtempSync(join(tmpdir(), `testreport-${prefix}-`));
}

/** Creates (migrates) the database in dataDir with an owner, team, project and API key. */
export function initDataDir(dataDir, db, bin = serverBin) {
  const out = execFileSync(process.execPath, [bin, 'init', '--email', 'bench@example.com', '--password', 'bench-password-1', '--json', '--data-dir', dataDir, ...dbArgs(db)], { encoding: 'utf8' });
  return JSON.parse(out.trim().split('\n').pop());
}

/** `--database-url` for a PostgreSQL bench database (bench/lib/database.mjs); nothing for SQLite. */
const dbArgs = (db) => (db?.databaseUrl ? ['--database-url', db.databaseUrl] : []);

/** bin: another build's server (bench/upkeep.mjs compares two builds). */
export async function startServer(dataDir, { env = {}, nodeArgs = [], db, bin = serverBin } = {}) {
  // BENCH_CPU_PROF=<dir>: every server of the run writes a V8 CPU profile there when it stops.
  const prof = process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : [];
  // BENCH_SERVER_NODE_ARGS="--trace-gc": node flags for every server of the run (with BENCH_SERVER_STDERR to see what they print).
  const extra = process.env.BENCH_SERVER_NODE_ARGS ? process.env.BENCH_SERVER_NODE_ARGS.split(' ').filter(Boolean) : [];
  const child = spawn(process.execPath, [...prof, ...extra, ...nodeArgs, bin, 'serve', '--port', '0', '--data-dir', dataDir, '--no-first-run', ...dbArgs(db)], {
    env: { ...process.env, TESTREPORT_RATE_LIMITS: 'off', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (d) => { stderr = (stderr + d).slice(-4000); if (process.env.BENCH_SERVER_STDERR) process.stderr.write(d); });
  const url = await new Promise((resolve, reject) => {
    let out = '';
    // A machine shared by many (load averages of 20 on 2 cores were seen) can take longer.
    const seconds = Number(process.env.BENCH_START_TIMEOUT_S ?? 60);
    const timer = setTimeout(() => reject(new Error(`server did not start in ${seconds} s: ${stderr}`)), seconds * 1000);
    child.stdout.on('data', (d) => {
      out += d;
      const m = /testreport listening on (\S+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    });
    child.once('exit', (code) => reject(new Error(`server exited with ${code}: ${stderr}`)));
  });
  child.stdout.resume();
  if (process.env.BENCH_SERVER_STDERR) child.stdout.on('data', (d) => process.stderr.write(d));
  return { url, pid: child.pid, stop: stopperOf(child) };
}

/** Stops a child process with SIGTERM and waits for it to exit (at once when it already has). */
export function stopperOf(child) {
  return async () => {
    if (child.exitCode !== null) return;
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    await exited;
  };
}

export function removeDir(dir) {
  rmSync(dir, { recursive: true, force: true });
}
