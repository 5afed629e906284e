// Wall time and peak RSS of a child process. Peak RSS comes from GNU time (`/usr/bin/time -v`,
// "Maximum resident set size": the largest single process of the tree, e.g. Playwright's runner,
// not the sum of its workers); without it, /proc is sampled every 50 ms for the whole tree.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, readdirSync } from 'node:fs';

const GNU_TIME = '/usr/bin/time';
export const hasGnuTime = existsSync(GNU_TIME);

function treeRssKb(rootPid) {
  const children = new Map();
  let rss = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (!children.has(ppid)) children.set(ppid, []);
      children.get(ppid).push(Number(entry));
    } catch {}
  }
  const stack = [rootPid];
  while (stack.length) {
    const pid = stack.pop();
    try {
      const m = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
      if (m) rss += Number(m[1]);
    } catch {}
    stack.push(...(children.get(pid) ?? []));
  }
  return rss;
}

/** Runs a command; resolves { wallMs, cpuMs (NaN without GNU time), peakRssMb, code, stdout, stderr }. */
export function measure(cmd, args, { env = process.env, cwd } = {}) {
  const useTime = hasGnuTime;
  const [file, argv] = useTime ? [GNU_TIME, ['-v', cmd, ...args]] : [cmd, args];
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(file, argv, { env, cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    let sampledKb = 0;
    const sampler = useTime ? null : setInterval(() => (sampledKb = Math.max(sampledKb, treeRssKb(child.pid))), 50);
    child.once('error', reject);
    child.once('exit', (code) => {
      const wallMs = performance.now() - started;
      if (sampler) clearInterval(sampler);
      let peakKb = sampledKb;
      let cpuMs = NaN;
      if (useTime) {
        const m = /Maximum resident set size \(kbytes\): (\d+)/.exec(stderr);
        peakKb = m ? Number(m[1]) : NaN;
        // User + system CPU of the whole tree: steadier than wall time on a shared machine.
        const user = /User time \(seconds\): ([\d.]+)/.exec(stderr);
        const sys = /System time \(seconds\): ([\d.]+)/.exec(stderr);
        if (user && sys) cpuMs = (Number(user[1]) + Number(sys[1])) * 1000;
        stderr = stderr.replace(/\n?\tCommand being timed:[\s\S]*$/, '');
      }
      resolve({ wallMs, cpuMs, peakRssMb: peakKb / 1024, code, stdout, stderr });
    });
  });
}

/** CPU seconds used so far by a process (/proc/<pid>/stat utime + stime; null elsewhere). */
/** Minor page faults of a process so far (/proc/<pid>/stat), or null once it is gone. */
export function processFaults(pid) {
  try {
    return Number(readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ')[7]);
  } catch {
    return null;
  }
}

export function processCpu(pid) {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100; // USER_HZ is 100 on Linux
  } catch {
    return null;
  }
}

/**
 * CPU seconds of every live process named `comm` (e.g. `postgres`: the backends, WAL writer,
 * checkpointer, autovacuum), plus what their exited children were charged with (a backend that
 * ended since): the database server's share of a phase, which processCpu of the node server omits.
 */
export function commandCpu(comm) {
  let total = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      if (stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')) !== comm) continue;
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      total += Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14]);
    } catch {}
  }
  return total / 100;
}

/**
 * Waits until a process has used at most one clock tick of CPU (10 ms) in each of two 250 ms spells
 * in a row, or `maxMs` passed: a server's deferred work (a finish's flakiness recompute, the
 * insights fold of what a run stored) done before the next measurement starts. Resolves the ms waited.
 */
export async function untilIdle(pid, maxMs = 10_000) {
  const t0 = performance.now();
  let quiet = 0;
  let last = processCpu(pid);
  while (quiet < 2 && last !== null && performance.now() - t0 < maxMs) {
    await new Promise((r) => setTimeout(r, 250));
    const now = processCpu(pid);
    quiet = now !== null && now - last <= 0.011 ? quiet + 1 : 0;
    last = now;
  }
  return performance.now() - t0;
}

/** The middle value; of an even count, the mean of the two middle ones (the benches' one median). */
export function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}
