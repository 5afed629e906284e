// A/B of server builds by CPU per test of POST /tests/batch, for a shared machine where wall time
// is noise. Keep each build as a copy of packages/server/dist (e.g. `cp -r packages/server/dist
// packages/server/dist-before`; dist-*/ is git-ignored), then:
//   node bench/cpu-batch.mjs <rounds> packages/server/dist-before packages/server/dist
// Each round starts each build's server on a fresh SQLite data dir (order alternating per round),
// warms it, sends RUNS×10,000 tests (default 100,000) in 500-test batches, 4 in flight, and prints
// the server's CPU µs/test (/proc/<pid>/stat), its page faults per batch, and the medians.
// BENCH_CPU_PROF=<dir> writes profiles.
// BENCH_DB=postgres: each server on a fresh PostgreSQL database instead (bench/lib/database.mjs).
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { api } from './lib/http.mjs';
import { initDataDir, removeDir, root, tempDir } from './lib/server.mjs';
import { commandCpu, median, processCpu, processFaults } from './lib/measure.mjs';
import { testBody } from './lib/bodies.mjs';
import { openBenchDatabase } from './lib/database.mjs';
import { newRun, suiteBatches, sendBatches } from './ingest.mjs';

const [rounds = '3', ...dists] = process.argv.slice(2);
const RUNS = Number(process.env.RUNS ?? 10);

async function start(dist, dataDir, db) {
  const prof = process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : [];
  const child = spawn(process.execPath, [...prof, join(root, dist, 'bin.js'), 'serve', '--port', '0', '--data-dir', dataDir, '--no-first-run', ...(db.databaseUrl ? ['--database-url', db.databaseUrl] : [])], {
    env: { ...process.env, TESTREPORT_RATE_LIMITS: 'off' }, stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stderr.resume();
  const url = await new Promise((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (d) => { out += d; const m = /testreport listening on (\S+)/.exec(out); if (m) resolve(m[1]); });
    child.once('exit', (c) => reject(new Error(`exit ${c}`)));
  });
  child.stdout.resume();
  return { url, pid: child.pid, stop: () => new Promise((r) => { child.once('exit', r); child.kill('SIGTERM'); }) };
}

const results = Object.fromEntries(dists.map((d) => [d, []]));
const rates = Object.fromEntries(dists.map((d) => [d, []]));
for (let r = 0; r < Number(rounds); r++) {
  const order = r % 2 ? [...dists].reverse() : dists;
  for (const dist of order) {
    const dataDir = tempDir('cpub');
    const db = await openBenchDatabase(process.env.BENCH_DB ?? 'sqlite', dataDir);
    try {
      // Initialised by the build under test: an older build refuses a database a newer one migrated.
      const { projectId, apiKey } = initDataDir(dataDir, db, join(root, dist, 'bin.js'));
      const server = await start(dist, dataDir, db);
      const call = api(server.url, apiKey);
      const warm = await newRun(call, projectId);
      for (let w = 0; w < 4; w++) await call('POST', '/tests/batch', { tests: Array.from({ length: 500 }, (_, i) => testBody({ runId: warm, projectId, i: 900_000 + w * 500 + i })) });
      const batches = await suiteBatches(call, projectId, RUNS);
      const cpu0 = processCpu(server.pid);
      const faults0 = processFaults(server.pid);
      const pg0 = db.databaseUrl ? commandCpu('postgres') : 0;
      const sec = await sendBatches([call], batches, 4);
      const us = ((processCpu(server.pid) - cpu0) / (batches.length * 500)) * 1e6;
      // First touches of fresh memory: ~19 µs each on the virtual machines measured (docs/benchmarks.md).
      const faults = (processFaults(server.pid) - faults0) / batches.length;
      const pgUs = db.databaseUrl ? ((commandCpu('postgres') - pg0) / (batches.length * 500)) * 1e6 : null;
      await server.stop();
      results[dist].push(us);
      rates[dist].push((batches.length * 500) / sec);
      console.log(`round ${r} ${dist}: ${us.toFixed(1)} µs/test${pgUs === null ? '' : ` (PostgreSQL's processes ${pgUs.toFixed(1)} µs/test more)`}, ${((batches.length * 500) / sec).toFixed(0)} tests/s, ${faults.toFixed(0)} page faults per batch`);
    } finally {
      await db.drop();
      removeDir(dataDir);
    }
  }
}
for (const d of dists) console.log(`median ${d}: ${median(results[d]).toFixed(1)} µs/test, ${median(rates[d]).toFixed(0)} tests/s  [${results[d].map((x, i) => `${x.toFixed(1)} µs ${rates[d][i].toFixed(0)}/s`).join(', ')}]`);
