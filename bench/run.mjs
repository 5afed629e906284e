#!/usr/bin/env node
// npm run bench [-- --quick] [-- --only ingest,overhead,upload,reads,pages,bigrun,fleet,shards,writes] [-- --db sqlite|postgres|both]
//                [-- --results N]  (size of the generated history of reads and pages; default 1,000,000, quick 100,000/200,000)
//                [-- reads10m upkeep]  (parts named alone, as --only; these two run only when named)
// Prints one line per figure and writes bench/results.json. Needs a build (npm run build).
import { existsSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { benchBigRun } from './bigrun.mjs';
import { benchFleet } from './fleet.mjs';
import { benchIngest, fmt } from './ingest.mjs';
import { benchOverhead } from './overhead.mjs';
import { benchPages } from './pages.mjs';
import { benchReads } from './reads.mjs';
import { benchReads10m } from './reads10m.mjs';
import { benchUpkeep } from './upkeep.mjs';
import { benchShards } from './shards.mjs';
import { benchUpload } from './upload.mjs';
import { benchWrites } from './writes.mjs';
import { hasGnuTime } from './lib/measure.mjs';
import { serverBin } from './lib/server.mjs';

const { values, positionals } = parseArgs({ allowPositionals: true, options: { quick: { type: 'boolean', default: false }, only: { type: 'string' }, db: { type: 'string', default: 'sqlite' }, results: { type: 'string' }, 'reporter-tests': { type: 'string' }, help: { type: 'boolean', default: false } } });
if (values.help) {
  process.stdout.write(`npm run bench [-- options]
  --quick             reduced sizes: a smoke check, not a source of figures
  --only a,b          parts: ingest, overhead, upload, reads, pages, bigrun, fleet, shards, writes (default: all of these),
                      reads10m, upkeep (only when named; also as words: npm run bench -- reads10m --db both)
  --db kind           sqlite (default), postgres or both
  --results N         results in the generated history of reads and pages (default 1000000; 10000000 for issue 18's goal)
                      and of reads10m (default 10000000: issue 27's error groups, compare, search, insights)
  --reporter-tests N  tests in the overhead part's suite (default 2000; 50000 for issue 30's goal: one round ≈ 21 min on 2 cores)
  BENCH_SAMPLES=n     requests per endpoint in reads10m (default 100, quick 30)
  BENCH_UPKEEP_ROUNDS=n  interleaved rounds per build in upkeep (default 3)
  BENCH_OVERHEAD_ROUNDS=n  paired rounds of the overhead part (default 12; 5 above 10,000 tests)
  BENCH_CPU_PROF=dir  every server started writes a V8 CPU profile to dir when it stops
  BENCH_SERVER_NODE_ARGS="--trace-gc"  node flags for every server started (BENCH_SERVER_STDERR=1 shows what they print)
`);
  process.exit(0);
}
const historySize = values.results === undefined ? undefined : Number(values.results.replace(/_/g, ''));
if (historySize !== undefined && !(Number.isInteger(historySize) && historySize >= 10_000)) throw new Error(`--results must be a whole number ≥ 10000, not "${values.results}"`);
const reporterTests = values['reporter-tests'] === undefined ? undefined : Number(values['reporter-tests'].replace(/_/g, ''));
if (reporterTests !== undefined && !(Number.isInteger(reporterTests) && reporterTests >= 100)) throw new Error(`--reporter-tests must be a whole number ≥ 100, not "${values['reporter-tests']}"`);
const parts = { ingest: benchIngest, overhead: benchOverhead, upload: benchUpload, reads: benchReads, pages: benchPages, bigrun: benchBigRun, fleet: benchFleet, shards: benchShards, writes: benchWrites, reads10m: benchReads10m, upkeep: benchUpkeep };
// Long parts (a 10,000,000-result history; a second build) run only when asked for by name.
const onlyWhenNamed = ['reads10m', 'upkeep'];
// Which databases a part means something on: the reporter's overhead does not depend on the
// server's database (measured on SQLite only), nor does the evenness of shards; the fleet needs a
// database servers can share.
const runsOn = { overhead: ['sqlite'], fleet: ['postgres'], shards: ['sqlite'] };
const dbs = { sqlite: ['sqlite'], postgres: ['postgres'], both: ['sqlite', 'postgres'] }[values.db];
if (!dbs) throw new Error(`unknown --db "${values.db}": sqlite, postgres or both`);
const named = [...(values.only ? values.only.split(',') : []), ...positionals.flatMap((p) => p.split(','))].map((s) => s.trim()).filter(Boolean);
const selected = named.length ? named : Object.keys(parts).filter((p) => !onlyWhenNamed.includes(p));
for (const name of selected) if (!parts[name]) throw new Error(`unknown part "${name}"; parts: ${Object.keys(parts).join(', ')}`);
if (!existsSync(serverBin)) throw new Error('packages/server/dist is missing: run `npm run build` first');

const log = (line) => process.stdout.write(line + '\n');
const machine = { cpus: cpus().length, cpuModel: cpus()[0]?.model, memoryGb: Math.round(totalmem() / 2 ** 30), node: process.version, platform: `${process.platform} ${process.arch}`, peakRss: hasGnuTime ? '/usr/bin/time -v' : '/proc sampling' };
const load = () => loadavg().map((l) => l.toFixed(2)).join(' ');
log(`bench   ${values.quick ? 'quick' : 'full'} mode on ${machine.cpus} × ${machine.cpuModel}, ${machine.memoryGb} GB, node ${machine.node}; database ${dbs.join(' + ')}; load average ${load()}`);

const started = performance.now();
const results = { startedAt: new Date().toISOString(), mode: values.quick ? 'quick' : 'full', machine, loadAverage: { start: loadavg() }, parts: {} };
for (const dbKind of dbs) {
  // Lines are tagged with the database when PostgreSQL is involved; SQLite-only output is unchanged.
  const tag = values.db === 'sqlite' ? '' : `[${dbKind}] `;
  const dbLog = (line) => log(line.replace(/^(\S+\s+)/, `$1${tag}`));
  results.parts[dbKind] = {};
  for (const name of selected) {
    if (runsOn[name] && !runsOn[name].includes(dbKind)) {
      // Said only when the part can run on no selected database, not once per skipped database.
      if (!dbs.some((d) => runsOn[name].includes(d))) dbLog(`${name.padEnd(7)} skipped: runs on ${runsOn[name].join(', ')} only (--db ${runsOn[name][0]} or both)`);
      continue;
    }
    // With both databases, ingest measures PostgreSQL inside SQLite's rounds (paired, bench/ingest.mjs).
    if (name === 'ingest' && dbKind === 'postgres' && results.parts.sqlite?.ingest?.postgres) {
      results.parts.postgres.ingest = results.parts.sqlite.ingest.postgres;
      delete results.parts.sqlite.ingest.postgres;
      continue;
    }
    try {
      results.parts[dbKind][name] = await parts[name]({ quick: values.quick, log: dbLog, dbKind, results: historySize, reporterTests, pairedPostgres: dbs.length > 1 });
    } catch (err) {
      results.parts[dbKind][name] = { error: err.message };
      dbLog(`${name.padEnd(7)} could not run: ${err.message.split('\n')[0]}`);
    }
  }
}
// The large upload against the server's own batch ingestion, both measured in this run (target ≥ 50%).
for (const dbKind of dbs) {
  const tag = values.db === 'sqlite' ? '' : `[${dbKind}] `;
  const large = results.parts[dbKind]?.upload?.large;
  const batch = results.parts[dbKind]?.ingest?.batch?.testsPerSecond;
  if (!large?.testsPerSecond) continue;
  if (!batch) {
    log(`upload  ${tag}large upload vs batch ingestion: run the ingest part in the same run (--only ingest,upload) to compare`);
    continue;
  }
  const share = large.testsPerSecond / batch;
  Object.assign(results.parts[dbKind].upload, { largeShareOfBatch: share, largeMeetsTargets: share >= 0.5 && large.flat });
  log(`upload  ${tag}${large.tests.toLocaleString('en-US')}-test upload ÷ batch ingestion: ${fmt(large.testsPerSecond)} ÷ ${fmt(batch)} tests/s = ${(share * 100).toFixed(0)}%, memory ${large.flat ? 'flat' : 'not flat'}  (target ≥ 50%, flat: ${share >= 0.5 && large.flat ? 'meets target' : 'misses target'})`);
}
const sqliteBatch = results.parts.sqlite?.ingest?.batch?.testsPerSecond;
const pgBatch = results.parts.postgres?.ingest?.batch?.testsPerSecond;
const paired = results.parts.sqlite?.ingest?.postgresVsSqlite;
if (paired) {
  results.postgresVsSqlite = paired;
  log(`ingest  PostgreSQL ÷ SQLite, batch: ×${paired.batchRatio.toFixed(2)}, median of ${paired.rounds.length} paired rounds (spread ×${paired.spread.min.toFixed(2)}–×${paired.spread.max.toFixed(2)}; medians ${fmt(pgBatch)} and ${fmt(sqliteBatch)} tests/s)  (target ≥ ×1: ${paired.meetsTargets ? 'meets target' : 'misses target'})`);
} else if (sqliteBatch && pgBatch) {
  const ratio = pgBatch / sqliteBatch;
  results.postgresVsSqlite = { batchRatio: ratio, meetsTargets: ratio >= 1 };
  log(`ingest  PostgreSQL ÷ SQLite, batch: ${fmt(pgBatch)} ÷ ${fmt(sqliteBatch)} tests/s = ×${ratio.toFixed(2)}  (target ≥ ×1: ${ratio >= 1 ? 'meets target' : 'misses target'})`);
}
results.loadAverage.end = loadavg();
results.seconds = (performance.now() - started) / 1000;
writeFileSync(fileURLToPath(new URL('./results.json', import.meta.url)), JSON.stringify(results, null, 2) + '\n');
log(`bench   done in ${results.seconds.toFixed(1)} s, load average ${load()} → bench/results.json`);
