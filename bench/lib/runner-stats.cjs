// For bench/reporter-runner.mjs (NODE_OPTIONS=--require): the CPU of the Playwright runner process alone at its exit (workers have an IPC channel and are skipped).
if (!process.send && process.env.RUNNER_STATS) {
  const c0 = process.cpuUsage();
  process.on('exit', () => {
    const c = process.cpuUsage();
    require('node:fs').appendFileSync(process.env.RUNNER_STATS, JSON.stringify({ pid: process.pid, cpuMs: (c.user + c.system) / 1000, upMs: performance.now(), marks: globalThis.__marks ?? {} }) + '\n');
  });
}
