#!/usr/bin/env node
// npm run bench [-- --quick] [-- --only ingest,overhead,upload,reads,pages]
// Prints one line per figure and writes bench/results.json. Needs a build (npm run build).
import { existsSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { benchIngest } from './ingest.mjs';
import { benchOverhead } from './overhead.mjs';
import { benchPages } from './pages.mjs';
import { benchReads } from './reads.mjs';
import { benchUpload } from './upload.mjs';
import { hasGnuTime } from './lib/measure.mjs';
import { serverBin } from './lib/server.mjs';

const { values } = parseArgs({ options: { quick: { type: 'boolean', default: false }, only: { type: 'string' } } });
const parts = { ingest: benchIngest, overhead: benchOverhead, upload: benchUpload, reads: benchReads, pages: benchPages };
const selected = values.only ? values.only.split(',').map((s) => s.trim()) : Object.keys(parts);
for (const name of selected) if (!parts[name]) throw new Error(`unknown part "${name}"; parts: ${Object.keys(parts).join(', ')}`);
if (!existsSync(serverBin)) throw new Error('packages/server/dist is missing: run `npm run build` first');

const log = (line) => process.stdout.write(line + '\n');
const machine = { cpus: cpus().length, cpuModel: cpus()[0]?.model, memoryGb: Math.round(totalmem() / 2 ** 30), node: process.version, platform: `${process.platform} ${process.arch}`, peakRss: hasGnuTime ? '/usr/bin/time -v' : '/proc sampling' };
log(`bench   ${values.quick ? 'quick' : 'full'} mode on ${machine.cpus} × ${machine.cpuModel}, ${machine.memoryGb} GB, node ${machine.node}`);

const started = performance.now();
const results = { startedAt: new Date().toISOString(), mode: values.quick ? 'quick' : 'full', machine, parts: {} };
for (const name of selected) {
  try {
    results.parts[name] = await parts[name]({ quick: values.quick, log });
  } catch (err) {
    results.parts[name] = { error: err.message };
    log(`${name.padEnd(7)} could not run: ${err.message.split('\n')[0]}`);
  }
}
results.seconds = (performance.now() - started) / 1000;
writeFileSync(fileURLToPath(new URL('./results.json', import.meta.url)), JSON.stringify(results, null, 2) + '\n');
log(`bench   done in ${results.seconds.toFixed(1)} s → bench/results.json`);
