// A run of 50,000 tests (issue 30, goal 4), through the real API and CLI: how long the run's finish
// takes after its last batch (the PATCH's answer, with the counts, and the arrival of its
// run.completed webhooks, generic and Slack), the run page of that run (time to first
// byte and compressed bytes, as a browser asks for it), and `reporter upload` of a Playwright JSON
// report of 50,000 tests. Runnable alone: node bench/bigrun.mjs [--quick] [--db postgres] [--tests N] [--no-upload].
import { createServer } from 'node:http';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { seededRandom, testBody } from './lib/bodies.mjs';
import { api, pool } from './lib/http.mjs';
import { openBenchDatabase } from './lib/database.mjs';
import { initDataDir, removeDir, startServer, tempDir } from './lib/server.mjs';
import { measurePage, signIn } from './pages.mjs';
import { uploadOnce } from './upload.mjs';
import { median } from './lib/measure.mjs';

const FINISH_TARGET_MS = 1_000;
const PAGE_TARGET_MS = 500;
const PAGE_BYTES_TARGET = 200 * 1024;
const UPLOAD_TARGET_S = 10;
const BATCH = 500;
const IN_FLIGHT = 4;

const load = () => loadavg()[0].toFixed(2);
const verdict = (ok) => (ok ? 'meets target' : 'misses target');

/** Receives webhook deliveries on 127.0.0.1; `next(n)` resolves when n more have arrived. */
async function webhookReceiver() {
  const arrivals = [];
  const waiters = [];
  const server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      arrivals.push({ path: req.url, body, at: performance.now() });
      res.end('ok');
      for (const w of waiters.splice(0)) w();
    });
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    arrivals,
    /** Resolves with the arrival time of the last of `count` deliveries naming runId (or rejects after ms). */
    async waitFor(runId, count, ms = 60_000) {
      const until = performance.now() + ms;
      for (;;) {
        const mine = arrivals.filter((a) => a.body.includes(runId));
        if (mine.length >= count) return Math.max(...mine.map((a) => a.at));
        if (performance.now() > until) throw new Error(`only ${mine.length} of ${count} webhook deliveries of run ${runId} arrived`);
        await new Promise((r) => { waiters.push(r); setTimeout(r, 200).unref(); });
      }
    },
    close: () => new Promise((r) => server.close(r)),
  };
}

/**
 * One run of `tests` results sent as the reporter does (batches of 500, 4 in flight), then finished
 * with its counts. `ciBuild`: the run of a CI build (`ciBuildId`, `attempt`), finished by its
 * shard's end (the server counts it), as the reporter does in CI.
 */
async function oneRun(call, projectId, tests, seed, ciBuild) {
  const rand = seededRandom(seed);
  const run = await call('POST', '/runs', { projectId, status: 'running', branch: 'main', runTitle: `bench ${seed}`, ...ciBuild });
  const counts = { passed: 0, failed: 0, skipped: 0, flaky: 0 };
  const batches = Math.ceil(tests / BATCH);
  const bodies = Array.from({ length: batches }, (_, b) =>
    Array.from({ length: Math.min(BATCH, tests - b * BATCH) }, (_, k) => {
      const body = testBody({ runId: run.id, projectId, i: b * BATCH + k, rand });
      counts[body.status]++;
      return body;
    }),
  );
  await pool(batches, IN_FLIGHT, (b) => call('POST', '/tests/batch', { tests: bodies[b] }));
  const lastBatch = performance.now();
  const status = counts.failed ? 'failed' : 'passed';
  const given = ciBuild ? {} : { totalTests: tests, passedTests: counts.passed, failedTests: counts.failed, skippedTests: counts.skipped, flakyTests: counts.flaky };
  await call('PATCH', `/runs/${run.id}`, { status, ...given, duration: 600_000 });
  return { runId: run.id, lastBatch, patched: performance.now(), counts };
}

export async function benchBigRun({ quick, log, dbKind = 'sqlite', bigRunTests, skipUpload = false }) {
  const tests = bigRunTests ?? (quick ? 5_000 : 50_000);
  const rounds = quick ? 1 : 3;
  const n = tests.toLocaleString('en-US');
  const result = { tests, rounds };
  const receiver = await webhookReceiver();
  const dataDir = tempDir('bigrun');
  const db = await openBenchDatabase(dbKind, dataDir);
  try {
    const { projectId, apiKey } = initDataDir(dataDir, db);
    const server = await startServer(dataDir, { db, env: { TESTREPORT_WEBHOOK_ALLOW_PRIVATE: 'true' } });
    try {
      const call = api(server.url, apiKey);
      const events = ['run.completed']; // every finish, once per webhook (run.failed would add a second delivery)
      for (const format of ['generic', 'slack']) await call('POST', '/webhooks', { projectId, url: `${receiver.url}/${format}`, events, format });
      // The previous run the page compares with; its finish is a warm-up.
      const first = await oneRun(call, projectId, tests, 1);
      await receiver.waitFor(first.runId, 2);
      const finishes = [];
      let last;
      for (let r = 0; r < rounds; r++) {
        last = await oneRun(call, projectId, tests, 2 + r);
        const hooked = await receiver.waitFor(last.runId, 2);
        finishes.push({ patchMs: last.patched - last.lastBatch, webhooksMs: hooked - last.lastBatch, load: Number(load()) });
      }
      result.finish = { patchMs: median(finishes.map((f) => f.patchMs)), webhooksMs: median(finishes.map((f) => f.webhooksMs)), rounds: finishes };
      result.finish.meetsTargets = result.finish.webhooksMs <= FINISH_TARGET_MS;
      log(`bigrun  finish of a ${n}-test run after its last batch: PATCH answered in ${result.finish.patchMs.toFixed(0)} ms, both webhooks (generic, Slack) delivered in ${result.finish.webhooksMs.toFixed(0)} ms, median of ${rounds} (rounds: ${finishes.map((f) => `${f.patchMs.toFixed(0)}/${f.webhooksMs.toFixed(0)}`).join(', ')} ms); load ${load()}  (target ≤ ${FINISH_TARGET_MS} ms: ${verdict(result.finish.meetsTargets)})`);

      // The flakiness recompute of the run's cases runs after the finish; GET /flakiness finishes
      // it (it recomputes dirty cases before it reads), so the page is measured on a settled server.
      await call('GET', `/flakiness?projectId=${projectId}&limit=1`);
      const cookie = await signIn(server.url);
      result.pages = {};
      const samples = quick ? 5 : 20;
      for (const [name, path] of [['run page', `/runs/${last.runId}`], ['its failures', `/runs/${last.runId}?status=failed`]]) {
        const p = await measurePage(server.url + path, cookie, samples);
        p.meetsTargets = p.ttfbP50 <= PAGE_TARGET_MS && p.compressedBytes <= PAGE_BYTES_TARGET;
        result.pages[name] = p;
        log(`bigrun  ${name} of the ${n}-test run: TTFB p50 ${p.ttfbP50.toFixed(0)} ms, p99 ${p.ttfbP99.toFixed(0)} ms, ${(p.compressedBytes / 1024).toFixed(1)} KB ${p.encoding} (${(p.rawBytes / 1024).toFixed(0)} KB of HTML); load ${load()}  (targets ≤ ${PAGE_TARGET_MS} ms, ≤ 200 KB: ${verdict(p.meetsTargets)})`);
      }

      // A CI build of the same suite run twice ("re-run all jobs"): the second attempt's results
      // replace the first's test by test (docs/decisions.md §13), so every read applies the
      // latest-attempt rule over 2 × tests results.
      const ciBuild = { ciBuildId: 'bench-rerun' };
      const once = await oneRun(call, projectId, tests, 10, { ...ciBuild, attempt: 1 });
      await receiver.waitFor(once.runId, 2);
      const again = await oneRun(call, projectId, tests, 11, { ...ciBuild, attempt: 2 });
      if (again.runId !== once.runId) throw new Error('the CI build\'s second attempt did not join its run');
      const rerunHooked = await receiver.waitFor(again.runId, 4);
      result.rerun = { patchMs: again.patched - again.lastBatch, webhooksMs: rerunHooked - again.lastBatch, load: Number(load()) };
      result.rerun.meetsTargets = result.rerun.webhooksMs <= FINISH_TARGET_MS;
      log(`bigrun  finish of the second attempt of a ${n}-test CI build (${(2 * tests).toLocaleString('en-US')} results in the run): PATCH answered in ${result.rerun.patchMs.toFixed(0)} ms, both webhooks in ${result.rerun.webhooksMs.toFixed(0)} ms; load ${load()}  (target ≤ ${FINISH_TARGET_MS} ms: ${verdict(result.rerun.meetsTargets)})`);
      await call('GET', `/flakiness?projectId=${projectId}&limit=1`);
      result.rerun.pages = {};
      for (const [name, path] of [['run page', `/runs/${again.runId}`], ['its failures', `/runs/${again.runId}?status=failed`], ['its flaky tests', `/runs/${again.runId}?status=flaky`]]) {
        const p = await measurePage(server.url + path, cookie, samples);
        p.meetsTargets = p.ttfbP50 <= PAGE_TARGET_MS && p.compressedBytes <= PAGE_BYTES_TARGET;
        result.rerun.pages[name] = p;
        log(`bigrun  ${name} of the re-run CI build: TTFB p50 ${p.ttfbP50.toFixed(0)} ms, p99 ${p.ttfbP99.toFixed(0)} ms, ${(p.compressedBytes / 1024).toFixed(1)} KB ${p.encoding} (${(p.rawBytes / 1024).toFixed(0)} KB of HTML); load ${load()}  (targets ≤ ${PAGE_TARGET_MS} ms, ≤ 200 KB: ${verdict(p.meetsTargets)})`);
      }
    } finally {
      await server.stop();
    }
  } finally {
    await receiver.close();
    await db.drop();
    removeDir(dataDir);
  }
  if (skipUpload) return result;
  const up = await uploadOnce(tests, dbKind);
  result.upload = { ...up, meetsTargets: up.seconds <= UPLOAD_TARGET_S };
  log(`bigrun  reporter upload of ${n} tests (Playwright JSON, ${up.reportMb.toFixed(1)} MB): ${up.seconds.toFixed(2)} s, peak RSS ${up.peakRssMb.toFixed(0)} MB, CLI CPU ${up.cpuSeconds.toFixed(2)} s; load ${load()}  (target ≤ ${UPLOAD_TARGET_S} s: ${verdict(result.upload.meetsTargets)})`);
  result.meetsTargets = result.finish.meetsTargets && Object.values(result.pages).every((p) => p.meetsTargets) && result.upload.meetsTargets;
  return result;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const quick = process.argv.includes('--quick');
  const dbKind = process.argv.includes('--db') ? process.argv[process.argv.indexOf('--db') + 1] : 'sqlite';
  console.log(`bigrun  load average ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
  const t = process.argv.indexOf('--tests');
  await benchBigRun({ quick, dbKind, bigRunTests: t > 0 ? Number(process.argv[t + 1]) : undefined, skipUpload: process.argv.includes('--no-upload'), log: (l) => console.log(l) });
}
