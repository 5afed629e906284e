// The reporter's own CPU per result, in its own process: what it adds to Playwright's runner before
// the runner's far larger run-to-run spread hides it (docs/benchmarks.md, twenty-third session).
//   node bench/reporter-cpu.mjs [rounds] [reporter dist dir ...]     (default: 7 packages/reporter/dist)
// Keep another build as a copy (`cp -r packages/reporter/dist packages/reporter/dist-before`) and
// name both: they are loaded into one process and take turns (A B B A …) against one fresh server,
// each round N synthetic results (BENCH_RESULTS, default 10,000) shaped as Playwright hands them
// over (a hook, a test.step with an expect, a hook), paced at 4,000 per second, from onBegin to the
// end of onEnd. Prints process CPU µs per result of every round and the medians, the first round of
// each build left out (loading and compiling).
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { median } from './lib/measure.mjs';
import { initDataDir, removeDir, root, startServer, tempDir } from './lib/server.mjs';

const [roundsArg = '7', ...dirs] = process.argv.slice(2);
const builds = dirs.length ? dirs : ['packages/reporter/dist'];
const N = Number(process.env.BENCH_RESULTS ?? 10_000);
const PER_TICK = 20;
const TICK_MS = 5;

const suiteDir = join(root, 'bench/.reporter-cpu');
const loc = (file, line) => ({ file, line, column: 5 });

/** Playwright's objects as a reporter sees them, for N trivial tests in files of 100. */
function syntheticRun(n) {
  const files = [];
  const tests = [];
  for (let f = 0; f * 100 < n; f++) {
    const name = `area-${String(f).padStart(3, '0')}.spec.ts`;
    const file = join(suiteDir, name);
    const describe = { type: 'describe', title: `area ${f}`, location: loc(file, 2), suites: [], tests: [] };
    files.push({ type: 'file', title: name, location: loc(file, 0), suites: [describe], tests: [] });
    for (let t = 0; t < Math.min(100, n - f * 100); t++) {
      const title = `computes case ${t}`;
      const startTime = new Date(Date.now() - 1000);
      const result = {
        retry: 0, status: 'passed', duration: 7, startTime, workerIndex: 0, parallelIndex: 0, stdout: [], stderr: [], attachments: [], errors: [], annotations: [],
        steps: [
          { title: 'Before Hooks', category: 'hook', duration: 1, steps: [], startTime },
          { title: 'add', category: 'test.step', duration: 2, location: loc(file, 4 + 3 * t), startTime, steps: [{ title: 'Expect "toBe"', category: 'expect', duration: 0, location: loc(file, 4 + 3 * t), steps: [], startTime }] },
          { title: 'After Hooks', category: 'hook', duration: 1, steps: [], startTime },
        ],
      };
      const test = {
        id: `${f}-${t}`, title, location: loc(file, 3 + 3 * t), tags: [], annotations: [], results: [result], retries: 0, expectedStatus: 'passed', parent: describe,
        titlePath: () => ['', '', name, describe.title, title], outcome: () => 'expected',
      };
      describe.tests.push(test);
      tests.push([test, result]);
    }
  }
  const project = { type: 'project', title: '', suites: files, project: () => ({ name: '' }) };
  return { root: { type: 'root', title: '', suites: [project], allTests: () => tests.map(([t]) => t) }, tests };
}

const config = { rootDir: suiteDir, configFile: join(suiteDir, 'playwright.config.ts'), projects: [{ name: '', use: {} }], version: '1.57.0', workers: 2, grep: /.*/, grepInvert: null, shard: null, metadata: {} };

async function oneRound(Reporter, server, outputDir) {
  const { root: suite, tests } = syntheticRun(N);
  const reporter = new Reporter({ url: server.url, apiKey: server.apiKey, projectId: server.projectId, outputDir });
  reporter.onBegin(config, suite);
  // As in Playwright, the first results come after the workers started: the session, loaded at the
  // first test's begin, is connected by then.
  reporter.onTestBegin?.(tests[0][0], tests[0][1]);
  await reporter.session;
  await new Promise((r) => setTimeout(r, 700));
  const cpu0 = process.cpuUsage();
  let i = 0;
  for (const [test, result] of tests) {
    reporter.onTestEnd(test, result);
    if (++i % PER_TICK === 0) await new Promise((r) => setTimeout(r, TICK_MS));
  }
  await reporter.onEnd({ status: 'passed', startTime: new Date(), duration: 1000 });
  const cpu = process.cpuUsage(cpu0);
  return (cpu.user + cpu.system) / N;
}

const dataDir = tempDir('reporter-cpu');
const { projectId, apiKey } = initDataDir(dataDir);
const server = { ...(await startServer(dataDir)), projectId, apiKey };
const mods = [];
for (const dir of builds) mods.push((await import(pathToFileURL(resolve(root, dir, 'index.js')).href)).default);
const out = builds.map(() => []);
// Say as little as possible: the reporter prints its summary line through console.log.
const log = console.log;
console.log = () => {};
try {
  const rounds = Number(roundsArg) + 1;
  for (let r = 0; r < rounds; r++) {
    const order = builds.map((_, k) => k);
    if (r % 2) order.reverse();
    for (const k of order) {
      const us = await oneRound(mods[k], server, join(dataDir, 'spool'));
      if (r > 0) out[k].push(us);
      log(`reporter-cpu round ${r}${r === 0 ? ' (warm-up)' : ''} ${builds[k]}: ${us.toFixed(1)} µs per result`);
    }
  }
} finally {
  console.log = log;
  await server.stop();
  removeDir(dataDir);
}
for (const [k, dir] of builds.entries()) console.log(`reporter-cpu ${dir}: median ${median(out[k]).toFixed(1)} µs per result (rounds ${out[k].map((x) => x.toFixed(0)).join(', ')})`);
