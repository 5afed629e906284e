// Issue 27: "ingestion rate with the new upkeep within 10% of today's". POST /tests/batch of this
// build against the build of the commit before the failure-intelligence upkeep (fingerprints at
// ingestion, the search index), in interleaved rounds of one bench run, each round a fresh server
// and database; the ratio of the medians is printed. The older build is made once in a git
// worktree under the temp dir (BENCH_UPKEEP_BASE_DIR to use another), sharing this checkout's
// node_modules.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, symlinkSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { api } from './lib/http.mjs';
import { openBenchDatabase } from './lib/database.mjs';
import { initDataDir, removeDir, root, serverBin, startServer, tempDir } from './lib/server.mjs';
import { commandCpu, median, processCpu } from './lib/measure.mjs';
import { BATCH, fmt, newRun, sendBatches, suiteBatches } from './ingest.mjs';
import { testBody } from './lib/bodies.mjs';

const CONCURRENCY = 4;
const FOLD_TAIL_MS = 16_000;
const UPKEEP_PATHS = ['packages/server/src/errorGroups', 'packages/server/src/search'];
const load = () => loadavg().map((l) => l.toFixed(2)).join(' ');
const git = (...args) => execFileSync('git', ['-C', root, ...args], { encoding: 'utf8' }).trim();

/** The parent of the first commit that touched the upkeep's folders (BENCH_UPKEEP_BASE: another commit). */
export function baseCommit() {
  if (process.env.BENCH_UPKEEP_BASE) return git('rev-parse', process.env.BENCH_UPKEEP_BASE);
  const first = git('rev-list', '--reverse', 'HEAD', '--', ...UPKEEP_PATHS).split('\n')[0];
  return git('rev-parse', `${first}^`);
}

/** The built server of `commit`, in a worktree of its own (made and built on first use). */
function baseBuild(commit, log) {
  const dir = process.env.BENCH_UPKEEP_BASE_DIR ?? join(tmpdir(), `testreport-upkeep-base-${commit.slice(0, 12)}`);
  const bin = join(dir, 'packages/server/dist/bin.js');
  if (existsSync(bin)) return bin;
  log(`upkeep  building ${commit.slice(0, 12)} in ${dir} (once)`);
  if (!existsSync(dir)) git('worktree', 'add', '--detach', dir, commit);
  // The dependencies are this checkout's; the workspace packages are the old commit's own.
  const modules = join(dir, 'node_modules');
  mkdirSync(join(modules, '@testreport'), { recursive: true });
  for (const name of readdirSync(join(root, 'node_modules'))) {
    if (name === '@testreport' || existsSync(join(modules, name))) continue;
    symlinkSync(join(root, 'node_modules', name), join(modules, name));
  }
  for (const pkg of readdirSync(join(dir, 'packages'))) {
    if (!existsSync(join(modules, '@testreport', pkg))) symlinkSync(`../../packages/${pkg}`, join(modules, '@testreport', pkg));
    const own = join(root, 'packages', pkg, 'node_modules');
    if (existsSync(own) && !existsSync(join(dir, 'packages', pkg, 'node_modules'))) symlinkSync(own, join(dir, 'packages', pkg, 'node_modules'));
  }
  execFileSync(join(root, 'node_modules/.bin/tsup'), { cwd: dir, stdio: 'ignore' });
  return bin;
}

async function round({ bin, dbKind, batchRuns }) {
  const dataDir = tempDir('upkeep');
  const database = await openBenchDatabase(dbKind, dataDir);
  try {
    const { projectId, apiKey } = initDataDir(dataDir, database, bin);
    const server = await startServer(dataDir, { db: database, bin });
    try {
      const call = api(server.url, apiKey);
      const warmRun = await newRun(call, projectId);
      await call('POST', '/tests/batch', { tests: Array.from({ length: 50 }, (_, i) => testBody({ runId: warmRun, projectId, i: 900_000 + i })) });
      // BENCH_UPKEEP_WARM_CASES=1: the timed runs meet known test cases, as CI after a project's first run.
      if (process.env.BENCH_UPKEEP_WARM_CASES) await sendBatches([call], await suiteBatches(call, projectId, 1), CONCURRENCY);
      const batches = await suiteBatches(call, projectId, batchRuns);
      const cpu0 = processCpu(server.pid);
      const seconds = await sendBatches([call], batches, CONCURRENCY);
      const tests = batches.length * BATCH;
      const cpu1 = processCpu(server.pid);
      // On PostgreSQL the database's processes do part of the fold (the grouping of pending rows,
      // the upserts): their CPU in the tail counts too, for both builds (autovacuum included).
      const dbCpu = () => (dbKind === 'postgres' ? commandCpu('postgres') : 0);
      const db1 = dbCpu();
      // The insights fold (every 15 s) does part of the upkeep after the batches are answered: wait
      // for the next one, so its CPU counts too ("all in"). The build before has no fold: its tail is idle.
      await new Promise((r) => setTimeout(r, FOLD_TAIL_MS));
      const cpu2 = processCpu(server.pid);
      const dbTail = dbCpu() - db1;
      if (cpu0 === null) return { tests, seconds, testsPerSecond: tests / seconds, serverCpuMicrosPerTest: null, loadAverage: loadavg() };
      const tail = cpu2 - cpu1 + dbTail;
      return {
        tests, seconds, testsPerSecond: tests / seconds, loadAverage: loadavg(),
        serverCpuMicrosPerTest: ((cpu1 - cpu0) / tests) * 1e6,
        tailCpuSeconds: tail,
        tailDatabaseCpuSeconds: dbTail,
        allInCpuMicrosPerTest: ((cpu2 - cpu0) / tests) * 1e6,
        // As if the tail's work had run during the stream, on the server's one thread.
        allInTestsPerSecond: tests / (seconds + tail),
      };
    } finally {
      await server.stop();
    }
  } finally {
    await database.drop();
    removeDir(dataDir);
  }
}

export async function benchUpkeep({ quick, log, dbKind = 'sqlite' }) {
  const commit = baseCommit();
  const builds = { before: baseBuild(commit, log), now: serverBin };
  const rounds = Number(process.env.BENCH_UPKEEP_ROUNDS ?? (quick ? 1 : 3));
  const batchRuns = Number(process.env.BENCH_UPKEEP_RUNS ?? (quick ? 1 : 4));
  const result = { baseCommit: commit, rounds: [], database: dbKind };
  for (let r = 0; r < rounds; r++) {
    // Each build goes first in every other round, so neither always gets the warmer machine.
    const order = r % 2 ? ['now', 'before'] : ['before', 'now'];
    const pair = {};
    for (const which of order) {
      pair[which] = await round({ bin: builds[which], dbKind, batchRuns });
      const x = pair[which];
      log(`upkeep  round ${r + 1}/${rounds} ${which === 'now' ? 'this build        ' : `before (${commit.slice(0, 7)})`}: ${fmt(x.testsPerSecond)} tests/s (${fmt(x.tests)} tests in ${x.seconds.toFixed(2)} s; server CPU ${x.serverCpuMicrosPerTest?.toFixed(0)} µs/test; the next fold's ${x.tailCpuSeconds?.toFixed(2)} s${dbKind === 'postgres' ? ` (PostgreSQL's ${x.tailDatabaseCpuSeconds?.toFixed(2)} s of it)` : ''} included: ${fmt(x.allInTestsPerSecond)} tests/s, ${x.allInCpuMicrosPerTest?.toFixed(0)} µs/test; load ${load()})`);
    }
    result.rounds.push(pair);
  }
  const rate = (w) => median(result.rounds.map((p) => p[w].testsPerSecond));
  const cpu = (w) => median(result.rounds.map((p) => p[w].serverCpuMicrosPerTest ?? NaN));
  result.ratio = rate('now') / rate('before');
  result.cpuRatio = cpu('now') / cpu('before');
  const allIn = (w) => median(result.rounds.map((p) => p[w].allInTestsPerSecond ?? NaN));
  const allInCpu = (w) => median(result.rounds.map((p) => p[w].allInCpuMicrosPerTest ?? NaN));
  result.allInRatio = allIn('now') / allIn('before');
  result.allInCpuRatio = allInCpu('now') / allInCpu('before');
  // The verdict counts the fold's work: leaving it out would move upkeep outside the measurement.
  result.meetsTargets = result.allInRatio >= 0.9;
  // How steady it is: each round's two builds ran back to back, so their ratio cancels what the
  // machine did to both; the median and the spread of those per-round ratios are printed beside it.
  const paired = result.rounds.map((p) => p.now.allInTestsPerSecond / p.before.allInTestsPerSecond).filter(Number.isFinite);
  result.allInRoundRatios = paired;
  log(`upkeep  POST /tests/batch with the upkeep ÷ before it (${commit.slice(0, 7)}), medians of ${rounds} interleaved rounds: ${fmt(rate('now'))} ÷ ${fmt(rate('before'))} tests/s = ${(result.ratio * 100).toFixed(1)}%; server CPU per test ${cpu('now').toFixed(0)} ÷ ${cpu('before').toFixed(0)} µs = ${(result.cpuRatio * 100).toFixed(1)}%  (load ${load()})`);
  log(`upkeep  the same with the next insights fold's CPU included (${batchRuns} runs of 10,000 per round): ${fmt(allIn('now'))} ÷ ${fmt(allIn('before'))} tests/s = ${(result.allInRatio * 100).toFixed(1)}%; server CPU per test ${allInCpu('now').toFixed(0)} ÷ ${allInCpu('before').toFixed(0)} µs = ${(result.allInCpuRatio * 100).toFixed(1)}%  (target ≥ 90%: ${result.meetsTargets ? 'meets target' : 'misses target'})`);
  if (paired.length > 0) {
    const pct = (x) => `${(x * 100).toFixed(1)}%`;
    log(`upkeep  all in, per round (this build ÷ before, the same round): ${paired.map(pct).join(', ')}; median ${pct(median(paired))}, spread ${pct(Math.min(...paired))}–${pct(Math.max(...paired))}, ${paired.filter((x) => x >= 0.9).length} of ${paired.length} rounds ≥ 90%`);
  }
  return result;
}
