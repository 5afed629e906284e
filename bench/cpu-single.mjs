// A/B of server builds by one-test requests (issue 30, goal 1): POST /tests sent with the SDK
// (`tests.create`), 16 in flight, as `--only writes` sends them, but without its reads alongside and
// with the builds taking turns, so that a slow stretch of the machine weighs on both. Keep each build
// as a copy of packages/server/dist (dist-*/ is git-ignored), then:
//   node bench/cpu-single.mjs <rounds> packages/server/dist-before packages/server/dist
// Each round starts each build's server on a fresh data dir (order alternating per round), warms it
// with 500 requests, sends N (default 3,000) into a new run, and prints requests/s, the server's CPU µs
// per request (/proc/<pid>/stat) and the bench's own; then the medians and the per-round ratios.
// BENCH_DB=postgres: each server on a fresh PostgreSQL database. BENCH_CPU_PROF=<dir> writes profiles.
import { join } from 'node:path';
import { loadavg } from 'node:os';
import { TestReportClient } from '@testreport/client';
import { api } from './lib/http.mjs';
import { initDataDir, removeDir, root, startServer, tempDir } from './lib/server.mjs';
import { median, processCpu } from './lib/measure.mjs';
import { testBody } from './lib/bodies.mjs';
import { openBenchDatabase } from './lib/database.mjs';
import { newRun } from './ingest.mjs';

const [rounds = '4', ...dists] = process.argv.slice(2);
const N = Number(process.env.N ?? 3000);
const IN_FLIGHT = 16;

async function pool(n, k, fn) {
  let next = 0;
  await Promise.all(Array.from({ length: k }, async () => {
    while (next < n) await fn(next++);
  }));
}

const results = Object.fromEntries(dists.map((d) => [d, []]));
for (let r = 0; r < Number(rounds); r++) {
  const order = r % 2 ? [...dists].reverse() : dists;
  for (const dist of order) {
    const bin = join(root, dist, 'bin.js');
    const dataDir = tempDir('cpu-single');
    const database = await openBenchDatabase(process.env.BENCH_DB ?? 'sqlite', dataDir);
    try {
      const { projectId, apiKey } = initDataDir(dataDir, database, bin);
      const server = await startServer(dataDir, { db: database, bin });
      try {
        const call = api(server.url, apiKey);
        const sdk = new TestReportClient({ url: server.url, apiKey, maxRetries: 0 });
        const warm = await newRun(call, projectId);
        await pool(500, IN_FLIGHT, (i) => sdk.tests.create(testBody({ runId: warm, projectId, i })));
        const runId = await newRun(call, projectId);
        const c0 = processCpu(server.pid);
        const u0 = process.cpuUsage();
        const t0 = performance.now();
        await pool(N, IN_FLIGHT, (i) => sdk.tests.create(testBody({ runId, projectId, i })));
        const seconds = (performance.now() - t0) / 1000;
        const u = process.cpuUsage(u0);
        const x = { rate: N / seconds, cpu: ((processCpu(server.pid) - c0) / N) * 1e6, client: (u.user + u.system) / N };
        results[dist].push(x);
        console.log(`round ${r + 1} ${dist}: ${x.rate.toFixed(0)} requests/s, server ${x.cpu.toFixed(0)} µs/request, bench ${x.client.toFixed(0)} µs/request (load ${loadavg()[0].toFixed(2)})`);
      } finally {
        await server.stop();
      }
    } finally {
      await database.drop();
      removeDir(dataDir);
    }
  }
}
for (const d of dists) console.log(`${d}: median ${median(results[d].map((x) => x.rate)).toFixed(0)} requests/s, ${median(results[d].map((x) => x.cpu)).toFixed(0)} µs/request`);
if (dists.length === 2) {
  const [a, b] = dists;
  const ratios = results[a].map((x, i) => results[b][i].rate / x.rate);
  console.log(`${b} ÷ ${a} per round: ${ratios.map((x) => `×${x.toFixed(2)}`).join(', ')}; median ×${median(ratios).toFixed(2)}, ${ratios.filter((x) => x > 1).length} of ${ratios.length} faster`);
}
