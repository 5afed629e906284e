// Failure intelligence at scale (issue 27): the reads bench's history (bench/lib/dataset.mjs, with
// what ingestion derives from it: fingerprints, the search index) at 10,000,000 results by default,
// then p50/p99 over HTTP of the error groups, compare, search and insights reads. Sequential
// requests after a warm-up, each endpoint cycling through a few realistic queries.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { generateDataset } from './lib/dataset.mjs';
import { aggregatesBytes, fillInsightsAggregates, foldKeptAggregates } from './lib/aggregates.mjs';
import { fillErrorAggregates } from './lib/errorAggregates.mjs';
import { percentile } from './lib/http.mjs';
import { mb, openBenchDatabase } from './lib/database.mjs';
import { initDataDir, removeDir, startServer, tempDir } from './lib/server.mjs';
import { fmt } from './ingest.mjs';

export const DEFAULT_RESULTS = 10_000_000;
const BUDGET_MS = Number(process.env.BENCH_BUDGET_S ?? 90) * 1000;
const load = () => loadavg().map((l) => l.toFixed(2)).join(' ');

/** Each endpoint: target p99 in ms and the path of the i-th request. */
function endpoints(projectId, data) {
  const pick = (arr, i) => arr[(i * 7919) % arr.length];
  const cycle = (list) => (i) => list[i % list.length];
  const enc = encodeURIComponent;
  const p = `projectId=${projectId}`;
  const errorText = cycle(['ECONNRESET', 'Timeout', 'cart total', 'strict mode']);
  const branch = (i) => (i % 2 ? 'main' : `feature/change-${5 * ((i * 37) % Math.max(1, Math.floor(data.runIds.length / 5)))}`);
  const titles = cycle(['the invoice', 'checkout-0.spec', 'sorts the table #', 'restores a long name']);
  const errors = cycle(['ECONNRESET', 'cart total mismatch', 'strict mode violation', 'toHaveURL']);
  const output = cycle(['seeded 12 orders', 'u-4711', 'socket hang up', 'in 42 ms']);
  return {
    'GET /errors': [300, () => `/errors?${p}`],
    'GET /errors?q=': [300, (i) => `/errors?${p}&q=${enc(errorText(i))}`],
    'GET /errors?branch=': [300, (i) => `/errors?${p}&branch=${enc(branch(i))}`],
    'GET /errors/:fingerprint': [300, (i) => `/errors/${pick(data.fingerprints, i)}?${p}`],
    'GET /runs/:id/compare?base=': [300, (i) => `/runs/${pick(data.runIds, i)}/compare?base=${pick(data.runIds, i + 1)}`],
    'GET /search?in=titles': [500, (i) => `/search?${p}&in=titles&q=${enc(titles(i))}`],
    'GET /search?in=errors': [500, (i) => `/search?${p}&in=errors&q=${enc(errors(i))}`],
    'GET /search?in=output': [500, (i) => `/search?${p}&in=output&q=${enc(output(i))}`],
    'GET /search (all fields)': [500, (i) => `/search?${p}&q=${enc(errors(i))}`],
    'GET /insights?days=30': [300, () => `/insights?${p}&days=30`],
    'GET /insights?days=30&branch=main': [300, () => `/insights?${p}&days=30&branch=main`],
  };
}

/** What one /insights answer holds, in a line: a timed answer must also be a full one. */
async function insightsSummary(url, apiKey, log) {
  const body = await (await fetch(url, { headers: { 'x-api-key': apiKey } })).json();
  const withRuns = body.trend.filter((d) => d.runs > 0);
  const top = (list, f) => list.slice(0, 2).map(f).join('; ') || 'none';
  const s = {
    daysWithRuns: withRuns.length, runs: withRuns.reduce((n, d) => n + d.runs, 0),
    slowest: body.slowest.length, mostFailing: body.mostFailing.length, flakiest: body.flakiest.length, regressions: body.regressions.length,
  };
  log(`  answer: ${s.daysWithRuns} days with runs (${s.runs} runs, pass rate ${withRuns[0]?.passRate}–${withRuns.at(-1)?.passRate} %), slowest ${s.slowest} (${top(body.slowest, (x) => `${x.fullTitle} p50 ${x.p50} p95 ${x.p95} of ${x.results}`)}), most failing ${s.mostFailing} (${top(body.mostFailing, (x) => `${x.fullTitle} ${x.failures}/${x.results}`)}), flakiest ${s.flakiest} (${top(body.flakiest, (x) => `${x.fullTitle} ${x.flaky}/${x.results}`)}), regressions ${s.regressions}`);
  if (!s.daysWithRuns || !s.slowest) log('  answer is EMPTY: the aggregates are missing or the window misses the history');
  return s;
}

export async function benchReads10m({ quick, log: out, dbKind = 'sqlite', results: size }) {
  const log = (line) => out(`reads10m ${line}`);
  const perRun = 500;
  const total = size ?? (quick ? 100_000 : DEFAULT_RESULTS);
  const runs = Math.ceil(total / perRun);
  const samples = Number(process.env.BENCH_SAMPLES ?? (quick ? 30 : 100));
  // BENCH_KEEP_DATASET=dir: the history is generated once into dir (and its PostgreSQL database
  // kept), and later runs with the same dir measure on it again (another build, a new index: the
  // server's migrations run on it at start), instead of generating 10,000,000 results each time.
  const keep = process.env.BENCH_KEEP_DATASET ? join(process.env.BENCH_KEEP_DATASET, `${dbKind}-${runs * perRun}`) : undefined;
  const kept = keep && existsSync(join(keep, 'dataset.json')) ? JSON.parse(readFileSync(join(keep, 'dataset.json'), 'utf8')) : undefined;
  if (keep) mkdirSync(keep, { recursive: true });
  const dataDir = keep ?? tempDir('reads10m');
  const db = kept ? await openBenchDatabase(dbKind, dataDir, kept.databaseUrl) : await openBenchDatabase(dbKind, dataDir);
  try {
    let projectId, apiKey, data;
    if (kept) {
      ({ projectId, apiKey, data } = kept);
      log(`dataset: ${fmt(data.results)} results kept in ${keep} (generated in ${data.seconds.toFixed(1)} s)`);
      // A build that folds the insights aggregates folds a kept history before its reads are timed.
      await foldKeptAggregates(dataDir, db, log);
    } else {
      ({ projectId, apiKey } = initDataDir(dataDir, db));
      log(`dataset: generating ${fmt(runs * perRun)} results, load average ${load()}`);
      data = await generateDataset(dataDir, projectId, { runs, perRun }, db, (line) => log(`dataset: ${line} (load ${load()})`));
      const aggregates = await fillInsightsAggregates(dataDir, db, log);
      if (aggregates) Object.assign(data, { aggregatesSeconds: aggregates.seconds, aggregateRows: { days: aggregates.days, durations: aggregates.durations } });
      data.errorAggregatesSeconds = (await fillErrorAggregates(dataDir, db, log)).seconds;
      if (keep) writeFileSync(join(keep, 'dataset.json'), JSON.stringify({ projectId, apiKey, databaseUrl: db.databaseUrl, data }));
    }
    const sizeBytes = await db.sizeBytes();
    log(`dataset: ${fmt(data.results)} results (${runs} runs × ${perRun} tests, ${data.fingerprints.length} error groups) generated in ${data.seconds.toFixed(1)} s${data.aggregatesSeconds ? ` + insights aggregates ${data.aggregatesSeconds.toFixed(1)} s` : ''}; database ${mb(sizeBytes)}; load average ${load()}`);
    const aggregateBytes = data.aggregatesSeconds ? await aggregatesBytes(dataDir, db).catch((err) => ({ error: err.message })) : undefined;
    if (aggregateBytes) log(`dataset: insights aggregates take ${Object.entries(aggregateBytes).map(([t, b]) => `${t} ${typeof b === 'number' ? mb(b) : b}`).join(', ')} (tables with their indexes)`);
    const server = await startServer(dataDir, { db });
    const base = `${server.url}/api/v1`;
    const result = { results: data.results, runs, perRun, samples, generationSeconds: data.seconds, aggregatesSeconds: data.aggregatesSeconds, aggregateRows: data.aggregateRows, aggregateBytes, databaseBytes: sizeBytes, regression: data.regression, endpoints: {} };
    try {
      // BENCH_ENDPOINTS=search,errors: only the endpoints whose names contain one of these.
      const only = process.env.BENCH_ENDPOINTS?.split(',');
      for (const [name, [target, path]] of Object.entries(endpoints(projectId, data))) {
        if (only && !only.some((o) => name.includes(o))) continue;
        if (name.startsWith('GET /insights') && !data.aggregatesSeconds) {
          result.endpoints[name] = { skipped: 'insights aggregates not built (bench/lib/aggregates.mjs)' };
          log(`${name.padEnd(28)} skipped: the generated history has no insights aggregates (hook bench/lib/aggregates.mjs)`);
          continue;
        }
        const get = async (i) => {
          const res = await fetch(base + path(i), { headers: { 'x-api-key': apiKey } });
          const body = await res.text();
          if (!res.ok) throw Object.assign(new Error(`${name} → ${res.status} ${body.slice(0, 200)}`), { status: res.status });
        };
        try {
          // A read far over its target would take the whole session at 100 samples: each endpoint
          // gets a time budget, and stops early (saying so) with at least 10 samples.
          const started = performance.now();
          for (let i = 0; i < 3; i++) await get(i + samples);
          const times = [];
          const loadBefore = load();
          for (let i = 0; i < samples; i++) {
            if (i >= 10 && performance.now() - started > BUDGET_MS) break;
            const t0 = performance.now();
            await get(i);
            times.push(performance.now() - t0);
          }
          times.sort((a, b) => a - b);
          const r = { p50: percentile(times, 50), p99: percentile(times, 99), max: times[times.length - 1], samples: times.length, targetP99: target, loadAverage: [loadBefore, load()] };
          r.meetsTargets = r.p99 <= target;
          if (name.startsWith('GET /insights')) r.answer = await insightsSummary(base + path(0), apiKey, log);
          result.endpoints[name] = r;
          log(`${name.padEnd(28)} p50 ${r.p50.toFixed(1).padStart(7)} ms  p99 ${r.p99.toFixed(1).padStart(7)} ms  max ${r.max.toFixed(0)} ms  (${fmt(data.results)} results, ${times.length} requests${times.length < samples ? ' (time budget)' : ''}; target p99 ≤ ${target}: ${r.meetsTargets ? 'meets target' : 'misses target'}; load ${loadBefore} → ${load()})`);
        } catch (err) {
          // GET /insights is built on another branch: until it is merged the route answers 404.
          const missing = err.status === 404 && name.startsWith('GET /insights');
          result.endpoints[name] = { error: err.message, missing };
          log(`${name.padEnd(28)} ${missing ? 'not in this build (404): merge the insights branch' : `could not run: ${err.message}`}`);
        }
      }
    } finally {
      await server.stop();
    }
    result.meetsTargets = Object.values(result.endpoints).every((e) => e.meetsTargets);
    return result;
  } finally {
    if (!keep) {
      await db.drop();
      removeDir(dataDir);
    }
  }
}
