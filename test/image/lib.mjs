// Process helpers of the image test: podman, podman-compose and the host's CLI, with readable failures.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
/** Kept between runs: the Debian rootfs and the podman settings. */
export const WORK = '/var/tmp/testreport-image';

/**
 * The two settings without which `podman run` fails on these VMs (open-file limit above the VM's cap,
 * crun on hybrid cgroups), in a file of our own so that nothing in /etc changes.
 */
export function containersConf() {
  if (process.env.CONTAINERS_CONF && existsSync(process.env.CONTAINERS_CONF)) return;
  mkdirSync(WORK, { recursive: true });
  const file = join(WORK, 'containers.conf');
  writeFileSync(file, '[containers]\ndefault_ulimits = ["nofile=20000:20000", "nproc=4096:4096"]\n[engine]\nruntime = "runc"\n');
  process.env.CONTAINERS_CONF = file;
}

/** Runs a command; rejects (unless check is false) with its output's tail when it exits non-zero. */
export function sh(cmd, args, { env = process.env, check = true } = {}) {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(cmd, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let all = '';
    child.stdout.on('data', (d) => ((stdout += d), (all += d)));
    child.stderr.on('data', (d) => ((stderr += d), (all += d)));
    child.on('error', reject);
    child.on('close', (code) => {
      const r = { code, stdout, stderr, all };
      if (check && code !== 0) {
        const tail = all.trim().split('\n').slice(-40).join('\n');
        reject(new Error(`${cmd} ${args.join(' ')} exited with ${code}:\n${tail}`));
      } else resolvePromise(r);
    });
  });
}

export const podman = (args, opts) => sh('podman', args, opts);
export const compose = (args, env, opts) => sh('podman-compose', args, { ...opts, env: { ...process.env, ...env } });

const cliConfigDir = mkdtempSync(join(tmpdir(), 'testreport-image-cli-'));
/** The repository's built CLI (`reporter`), with nothing from the caller's TESTREPORT_* settings or config. */
export function cli(args, env) {
  const base = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('TESTREPORT_')));
  return sh(process.execPath, [join(ROOT, 'packages/cli/bin/reporter.js'), ...args], { env: { ...base, TESTREPORT_CONFIG_DIR: cliConfigDir, ...env }, check: false });
}

export function freePort() {
  return new Promise((resolvePromise, reject) => {
    const s = createServer();
    s.on('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolvePromise(port));
    });
  });
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Runs the container's HEALTHCHECK until it passes (without systemd, podman never runs it by itself). */
export async function waitHealthy(name, timeoutMs = 90_000) {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const r = await podman(['healthcheck', 'run', name], { check: false });
    if (r.code === 0) return;
    const state = (await podman(['inspect', '--format', '{{.State.Status}}', name], { check: false })).stdout.trim();
    if (state !== 'running' || Date.now() > until) {
      const logs = (await podman(['logs', '--tail', '30', name], { check: false })).all;
      throw new Error(`${name} is not healthy (state ${state}; last check: ${r.all.trim()}); its log:\n${logs}`);
    }
    await sleep(300);
  }
}

/** The container's log (stdout and stderr) once it shows `pattern`: healthy comes before the first-run block. */
export async function logOnce(name, pattern, timeoutMs = 30_000) {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const log = (await podman(['logs', name], { check: false })).all;
    if (pattern.test(log)) return log;
    if (Date.now() > until) throw new Error(`${name} never logged ${pattern}; its log:\n${log}`);
    await sleep(300);
  }
}

/** Prints a step, its time and its outcome; returns its result. */
export async function step(title, fn) {
  const t0 = Date.now();
  process.stdout.write(`• ${title} …\n`);
  try {
    const r = await fn();
    process.stdout.write(`  ok (${((Date.now() - t0) / 1000).toFixed(1)} s)\n`);
    return r;
  } catch (err) {
    process.stdout.write(`  FAILED: ${title}\n`);
    throw err;
  }
}
