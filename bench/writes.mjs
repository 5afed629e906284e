// Small writes (issue 30, group commit): POST /tests one test per request with 16 in flight, as a
// share of POST /tests/batch measured on the same server in the same run (goal ≥ 15%); the latency
// of a lone write (one in flight, goal p99 ≤ 20 ms on a quiet machine); and reads during the
// 16-in-flight writes (GET /runs/:id), which must not queue behind the writer. The single writes are
// sent with the SDK (`tests.create`), as the scripts that write one test at a time do; the same
// writes sent with `fetch`, the bench's client before, follow for comparison: on the same two cores a
// client's CPU is taken from the server's. And the ceiling of each client: the same POSTs answered by
// a bare node:http server.
// Runnable alone: npm run bench -- --only writes [--db postgres]
import { loadavg } from 'node:os';
import { TestReportClient } from '@testreport/client';
import { testBody } from './lib/bodies.mjs';
import { api, percentile, pool } from './lib/http.mjs';
import { openBenchDatabase } from './lib/database.mjs';
import { initDataDir, removeDir, startServer, tempDir } from './lib/server.mjs';
import { BATCH, fmt, newRun, sendBatches } from './ingest.mjs';
import { processCpu } from './lib/measure.mjs';
import { startBareServer } from './lib/bareServer.mjs';

const IN_FLIGHT = 16;
const BATCH_IN_FLIGHT = 4;
// Whichever single-write phase ran first cost the server 250 µs more per request than the other
// (both orders tried) after a warm-up of 200 + 100: too few to warm the one-test path (JIT, caches).
const WARM_SDK = Number(process.env.BENCH_WRITES_WARM ?? 1500);

/**
 * One test per request, two ways: the SDK (`tests.create`, undici's request on a keep-alive pool),
 * and `fetch` with the same headers (Idempotency-Key included), the bench's client until the
 * twenty-sixth session. On this machine fetch spent 3–5 times the SDK's CPU per POST (docs/benchmarks.md).
 */
function singleWriters(url, apiKey) {
  const sdk = new TestReportClient({ url, apiKey, maxRetries: 0 });
  const call = api(url, apiKey);
  return { sdk: (body) => sdk.tests.create(body), fetch: (body) => call('POST', '/tests', body) };
}

export async function benchWrites({ quick, log, dbKind }) {
  const batchCount = quick ? 6 : 20;
  const singleCount = quick ? 500 : 3_000;
  const loneCount = quick ? 100 : 400;
  const dataDir = tempDir('writes');
  const database = await openBenchDatabase(dbKind, dataDir);
  const load = () => loadavg()[0].toFixed(2);
  try {
    const { projectId, apiKey } = initDataDir(dataDir, database);
    const server = await startServer(dataDir, { db: database });
    const call = api(server.url, apiKey);
    const writers = singleWriters(server.url, apiKey);
    const result = { inFlight: IN_FLIGHT };
    try {
      // Warm-up: JIT, statement caches, the first test cases, both clients.
      const warmRun = await newRun(call, projectId);
      const warm = quick ? 300 : WARM_SDK;
      await pool(warm, IN_FLIGHT, (i) => writers.sdk(testBody({ runId: warmRun, projectId, i: 900_000 + i })));
      await pool(Math.round(warm / 2), IN_FLIGHT, (i) => writers.fetch(testBody({ runId: warmRun, projectId, i: 910_000 + i })));

      const batchRun = await newRun(call, projectId);
      const batches = Array.from({ length: batchCount }, (_, b) => Array.from({ length: BATCH }, (_, k) => testBody({ runId: batchRun, projectId, i: b * BATCH + k })));
      // Server CPU per test too: on a machine shared with other work far steadier than the rates.
      // And the bench's own CPU (the client sending the requests), which shares the two cores.
      const cpuPerTest = async (n, work, pid = server.pid) => {
        const c0 = processCpu(pid);
        const u0 = process.cpuUsage();
        const seconds = await work();
        const u = process.cpuUsage(u0);
        return { seconds, cpuMicros: c0 === null ? null : ((processCpu(pid) - c0) / n) * 1e6, clientCpuMicros: (u.user + u.system) / n };
      };
      const b = await cpuPerTest(batchCount * BATCH, () => sendBatches([call], batches, BATCH_IN_FLIGHT));
      result.batch = { tests: batchCount * BATCH, seconds: b.seconds, testsPerSecond: (batchCount * BATCH) / b.seconds, serverCpuMicrosPerTest: b.cpuMicros, loadAverage: load() };

      // The same test cases as the batches (one per request) into a run of their own, with reads of
      // the run alongside.
      const singles = async (send) => {
        const runId = await newRun(call, projectId);
        const readMs = [];
        let writing = true;
        const reader = (async () => {
          while (writing) {
            const t0 = performance.now();
            await call('GET', `/runs/${runId}`);
            readMs.push(performance.now() - t0);
            await new Promise((r) => setTimeout(r, 5));
          }
        })();
        const s = await cpuPerTest(singleCount, async () => {
          const t0 = performance.now();
          await pool(singleCount, IN_FLIGHT, (i) => send(testBody({ runId, projectId, i })));
          return (performance.now() - t0) / 1000;
        });
        writing = false;
        await reader;
        readMs.sort((a, b) => a - b);
        const out = { tests: singleCount, seconds: s.seconds, testsPerSecond: singleCount / s.seconds, serverCpuMicrosPerTest: s.cpuMicros, clientCpuMicrosPerTest: s.clientCpuMicros, loadAverage: load() };
        out.shareOfBatch = out.testsPerSecond / result.batch.testsPerSecond;
        out.readsDuringWrites = { reads: readMs.length, p50Ms: percentile(readMs, 50), p99Ms: percentile(readMs, 99) };
        return out;
      };
      result.single = await singles(writers.sdk);
      result.shareOfBatch = result.single.shareOfBatch;
      result.readsDuringWrites = result.single.readsDuringWrites;
      result.singleWithFetch = await singles(writers.fetch);

      // A lone writer: each request waits for the one before (a script, a small CI job).
      const loneRun = await newRun(call, projectId);
      const loneMs = [];
      for (let i = 0; i < loneCount; i++) {
        const s = performance.now();
        await writers.sdk(testBody({ runId: loneRun, projectId, i }));
        loneMs.push(performance.now() - s);
      }
      loneMs.sort((a, b) => a - b);
      result.lone = { writes: loneCount, p50Ms: percentile(loneMs, 50), p99Ms: percentile(loneMs, 99), loadAverage: load() };

      // Each client's ceiling: the same requests (bodies, headers, 16 in flight) answered by a server
      // that only reads them and replies with the real server's answer.
      const reply = await fetch(`${server.url}/api/v1/tests`, { method: 'POST', headers: { 'x-api-key': apiKey, 'content-type': 'application/json', 'idempotency-key': `ceiling-${Date.now()}` }, body: JSON.stringify(testBody({ runId: loneRun, projectId, i: 0 })) });
      const replyBody = await reply.text();
      await server.stop();
      const bare = await startBareServer(reply.status, replyBody);
      try {
        const bareWriters = singleWriters(bare.url, apiKey);
        result.clientCeiling = {};
        for (const which of ['sdk', 'fetch']) {
          const send = bareWriters[which];
          await pool(200, IN_FLIGHT, (i) => send(testBody({ runId: loneRun, projectId, i })));
          const c = await cpuPerTest(singleCount, async () => {
            const t0 = performance.now();
            await pool(singleCount, IN_FLIGHT, (i) => send(testBody({ runId: loneRun, projectId, i })));
            return (performance.now() - t0) / 1000;
          }, bare.pid);
          const ceiling = { requestsPerSecond: singleCount / c.seconds, serverCpuMicrosPerRequest: c.cpuMicros, clientCpuMicrosPerRequest: c.clientCpuMicros, loadAverage: load() };
          ceiling.shareOfBatch = ceiling.requestsPerSecond / result.batch.testsPerSecond;
          result.clientCeiling[which] = ceiling;
        }
      } finally {
        await bare.stop();
      }
    } finally {
      await server.stop();
    }
    const pct = (x) => `${(x * 100).toFixed(1)}%`;
    const cpu = (r) => (r.serverCpuMicrosPerTest === null ? '' : `; server CPU ${fmt(r.serverCpuMicrosPerTest)} µs/test`);
    // What the rates would be with the server alone on a CPU: the share CPU allows, whatever the load.
    if (result.batch.serverCpuMicrosPerTest && result.single.serverCpuMicrosPerTest) result.cpuShareOfBatch = result.batch.serverCpuMicrosPerTest / result.single.serverCpuMicrosPerTest;
    const { single, singleWithFetch: viaFetch } = result;
    log(`writes  POST /tests/batch (${BATCH} per batch, ${BATCH_IN_FLIGHT} in flight): ${fmt(result.batch.testsPerSecond)} tests/s (load ${result.batch.loadAverage}${cpu(result.batch)})`);
    log(`writes  POST /tests (1 per request, ${IN_FLIGHT} in flight, the SDK's tests.create): ${fmt(single.testsPerSecond)} tests/s = ${pct(single.shareOfBatch)} of the batch rate (goal ≥ 15%; load ${single.loadAverage}${cpu(single)}; the SDK's CPU ${fmt(single.clientCpuMicrosPerTest)} µs per POST)`);
    if (result.cpuShareOfBatch) log(`writes  by server CPU per test alone, one per request costs ${pct(result.cpuShareOfBatch)} of a batch's rate (the share a CPU-bound server reaches)`);
    log(`writes  the same with fetch as the client (the bench's before the twenty-sixth session): ${fmt(viaFetch.testsPerSecond)} tests/s = ${pct(viaFetch.shareOfBatch)} (load ${viaFetch.loadAverage}${cpu(viaFetch)}; fetch's CPU ${fmt(viaFetch.clientCpuMicrosPerTest)} µs per POST)`);
    for (const [which, ceil] of Object.entries(result.clientCeiling)) {
      log(`writes  ceiling of ${which === 'sdk' ? 'the SDK' : 'fetch'}: a bare node:http server answering the same POSTs (16 in flight) gets ${fmt(ceil.requestsPerSecond)}/s = ${pct(ceil.shareOfBatch)} of the batch rate (client CPU ${fmt(ceil.clientCpuMicrosPerRequest)} µs, bare server ${ceil.serverCpuMicrosPerRequest === null ? '?' : fmt(ceil.serverCpuMicrosPerRequest)} µs per request; load ${ceil.loadAverage})`);
    }
    const reads = (r) => `p50 ${r.p50Ms.toFixed(1)} ms, p99 ${r.p99Ms.toFixed(1)} ms (${r.reads} reads)`;
    log(`writes  GET /runs/:id during those writes: ${reads(single.readsDuringWrites)}; during fetch's: ${reads(viaFetch.readsDuringWrites)}`);
    log(`writes  one POST /tests at a time (the SDK): p50 ${result.lone.p50Ms.toFixed(1)} ms, p99 ${result.lone.p99Ms.toFixed(1)} ms (goal p99 ≤ 20 ms on a quiet machine; load ${result.lone.loadAverage})`);
    return result;
  } finally {
    await database.drop();
    removeDir(dataDir);
  }
}
