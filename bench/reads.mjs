// Reads at scale: p50/p99 of the dashboard's list and detail reads with a large history in one
// project (generated straight into SQLite), sequential requests over HTTP after a warm-up.
import { generateDataset } from './lib/dataset.mjs';
import { percentile } from './lib/http.mjs';
import { mb, openBenchDatabase } from './lib/database.mjs';
import { initDataDir, removeDir, startServer, tempDir } from './lib/server.mjs';
import { fmt } from './ingest.mjs';

export async function benchReads({ quick, log, dbKind = 'sqlite', results: size }) {
  const perRun = 500;
  const runs = size ? Math.ceil(size / perRun) : quick ? 200 : 2_000;
  const samples = quick ? 100 : 300;
  const dataDir = tempDir('reads');
  const db = await openBenchDatabase(dbKind, dataDir);
  try {
    const { projectId, apiKey } = initDataDir(dataDir, db);
    const data = await generateDataset(dataDir, projectId, { runs, perRun }, db, (line) => log(`reads   dataset: ${line}`));
    const sizeBytes = await db.sizeBytes();
    log(`reads   dataset: ${fmt(data.results)} results (${runs} runs × ${perRun} tests) generated in ${data.seconds.toFixed(1)} s; database ${mb(sizeBytes)}`);
    const server = await startServer(dataDir, { db });
    const base = `${server.url}/api/v1`;
    const pick = (arr, i) => arr[(i * 7919) % arr.length];
    const endpoints = {
      'GET /runs': () => `/runs?projectId=${projectId}`,
      'GET /tests?runId=': (i) => `/tests?projectId=${projectId}&runId=${pick(data.runIds, i)}`,
      'GET /tests/:id/history': (i) => `/tests/${pick(data.sampleTestIds, i)}/history`,
      'GET /flakiness': () => `/flakiness?projectId=${projectId}`,
    };
    const result = { results: data.results, runs, perRun, samples, generationSeconds: data.seconds, databaseBytes: sizeBytes, endpoints: {} };
    try {
      for (const [name, path] of Object.entries(endpoints)) {
        const get = async (i) => {
          const res = await fetch(base + path(i), { headers: { 'x-api-key': apiKey } });
          const body = await res.text();
          if (!res.ok) throw new Error(`${name} → ${res.status} ${body.slice(0, 200)}`);
        };
        try {
          for (let i = 0; i < 20; i++) await get(i + samples);
          const times = [];
          for (let i = 0; i < samples; i++) {
            const t0 = performance.now();
            await get(i);
            times.push(performance.now() - t0);
          }
          times.sort((a, b) => a - b);
          const r = { p50: percentile(times, 50), p99: percentile(times, 99), max: times[times.length - 1] };
          // Issue 18: p99 ≤ 50 ms at 10,000,000 results (it was ≤ 100 ms at 1,000,000).
          r.meetsTargets = r.p50 <= 20 && r.p99 <= 50;
          result.endpoints[name] = r;
          log(`reads   ${name.padEnd(22)} p50 ${r.p50.toFixed(1)} ms  p99 ${r.p99.toFixed(1)} ms  (${fmt(data.results)} results; targets p50 ≤ 20, p99 ≤ 50: ${r.meetsTargets ? 'meets target' : 'misses target'})`);
        } catch (err) {
          result.endpoints[name] = { error: err.message };
          log(`reads   ${name.padEnd(22)} could not run: ${err.message}`);
        }
      }
    } finally {
      await server.stop();
    }
    result.meetsTargets = Object.values(result.endpoints).every((e) => e.meetsTargets);
    return result;
  } finally {
    await db.drop();
    removeDir(dataDir);
  }
}
