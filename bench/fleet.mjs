// Fleet: batch ingestion through two server processes sharing one PostgreSQL database against one
// server, with the same requests in flight per server (4), so the second server doubles the offered
// load as a second instance behind a load balancer does. PostgreSQL only (a SQLite file is one
// server's, docs/deploy.md).
import { readFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { api } from './lib/http.mjs';
import { openBenchDatabase } from './lib/database.mjs';
import { initDataDir, removeDir, startServer, tempDir } from './lib/server.mjs';
import { BATCH, fmt, sendBatches, suiteBatches } from './ingest.mjs';
import { processCpu } from './lib/measure.mjs';

const CONCURRENCY = 4;

/** Busy and total CPU ticks of the whole machine (/proc/stat; null elsewhere). */
function cpuTicks() {
  try {
    const [, ...fields] = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/);
    const n = fields.map(Number);
    const idle = n[3] + (n[4] ?? 0);
    const total = n.reduce((a, b) => a + b, 0);
    return { busy: total - idle, total };
  } catch {
    return null;
  }
}

const TARGET_RATIO = 1.6;
const busy = (m) =>
  `CPUs ${m.machineBusy === null ? '?' : `${Math.round(m.machineBusy * 100)}%`} busy; CPU s: servers ${m.cpuSeconds.servers.toFixed(1)}, PostgreSQL backends ${m.cpuSeconds.postgres.toFixed(1)}, bench client ${m.cpuSeconds.benchClient.toFixed(1)}, of ${(m.seconds * cpus().length).toFixed(1)} on ${cpus().length} cores`;

export async function benchFleet({ quick, log, dbKind = 'postgres' }) {
  if (dbKind !== 'postgres') throw new Error('the fleet part runs on PostgreSQL only (--db postgres or both)');
  const runs = quick ? 2 : 10;
  const dirs = [tempDir('fleet-a'), tempDir('fleet-b')];
  const db = await openBenchDatabase('postgres', dirs[0]);
  const servers = [];
  try {
    const { projectId, apiKey } = initDataDir(dirs[0], db);
    // A shared secret, as docs/deploy.md asks of a fleet (artifact links; not used by ingestion).
    const env = { TESTREPORT_SECRET: 'bench-fleet-secret-0123456789abcdef0123456789abcdef' };
    for (const dir of dirs) servers.push(await startServer(dir, { db, env }));
    const calls = servers.map((s) => api(s.url, apiKey));

    // Warm-up on both servers: JIT, statement caches, and the suite's test cases exist before
    // either measurement, so both phases do the same upserts.
    await sendBatches(calls, await suiteBatches(calls[0], projectId, 1), CONCURRENCY);

    const measureWith = async (n) => {
      const batches = await suiteBatches(calls[0], projectId, runs);
      const before = cpuTicks();
      const serverCpu0 = servers.map((s) => processCpu(s.pid));
      const pgCpu0 = new Map((await db.backendPids()).map((pid) => [pid, processCpu(pid)]));
      const benchCpu0 = process.cpuUsage();
      const seconds = await sendBatches(calls.slice(0, n), batches, CONCURRENCY);
      const after = cpuTicks();
      const benchCpu = process.cpuUsage(benchCpu0);
      const pgPids = await db.backendPids(); // a backend opened during the phase counts in full
      // Where the CPU went: the servers, this load generator, the database's backends; the rest of
      // the machine's busy time is other load (and PostgreSQL's own background writers).
      const cpuSeconds = {
        servers: servers.map((s, i) => processCpu(s.pid) - serverCpu0[i]).reduce((a, b) => a + b, 0),
        benchClient: (benchCpu.user + benchCpu.system) / 1e6,
        postgres: pgPids.reduce((sum, pid) => sum + ((processCpu(pid) ?? 0) - (pgCpu0.get(pid) ?? 0)), 0),
      };
      const tests = batches.length * BATCH;
      // How busy the machine's CPUs were meanwhile (this bench, the servers, PostgreSQL and anything
      // else running): a second server can only add throughput from the CPU left idle.
      const machineBusy = before && after ? (after.busy - before.busy) / (after.total - before.total) : null;
      return { servers: n, tests, inFlight: CONCURRENCY * n, seconds, testsPerSecond: tests / seconds, machineBusy, cpuSeconds };
    };
    const one = await measureWith(1);
    log(`fleet   1 server  on PostgreSQL, ${one.inFlight} batches in flight: ${fmt(one.testsPerSecond)} tests/s (${one.tests} tests in ${one.seconds.toFixed(2)} s; ${busy(one)})`);
    const two = await measureWith(2);
    log(`fleet   2 servers on PostgreSQL, ${two.inFlight} batches in flight: ${fmt(two.testsPerSecond)} tests/s (${two.tests} tests in ${two.seconds.toFixed(2)} s; ${busy(two)})`);
    const ratio = two.testsPerSecond / one.testsPerSecond;
    const meetsTargets = ratio >= TARGET_RATIO;
    log(`fleet   2 servers ÷ 1 server: ×${ratio.toFixed(2)}  (target ≥ ×${TARGET_RATIO}: ${meetsTargets ? 'meets target' : 'misses target'})`);
    return { one, two, ratio, target: TARGET_RATIO, meetsTargets, databaseBytes: await db.sizeBytes() };
  } finally {
    for (const s of servers) await s.stop();
    await db.drop();
    for (const d of dirs) removeDir(d);
  }
}
