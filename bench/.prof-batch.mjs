// Temporary: profile only the batch phase. BENCH_CPU_PROF=dir node bench/.prof-batch.mjs [runs]
import { api } from './lib/http.mjs';
import { initDataDir, removeDir, startServer, tempDir } from './lib/server.mjs';
import { suiteBatches, sendBatches, newRun } from './ingest.mjs';
import { testBody } from './lib/bodies.mjs';
const runs = Number(process.argv[2] ?? 10);
const dataDir = tempDir('prof');
const { projectId, apiKey } = initDataDir(dataDir);
const server = await startServer(dataDir);
const call = api(server.url, apiKey);
const warm = await newRun(call, projectId);
await call('POST', '/tests/batch', { tests: Array.from({ length: 50 }, (_, i) => testBody({ runId: warm, projectId, i: 900_000 + i })) });
const batches = await suiteBatches(call, projectId, runs);
const sec = await sendBatches([call], batches, 4);
console.log(`${Math.round(batches.length * 500 / sec)} tests/s`);
await server.stop();
removeDir(dataDir);
