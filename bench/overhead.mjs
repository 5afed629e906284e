// Reporter overhead: a generated suite of trivial tests (no browser) run with `dot`, with `dot` +
// @testreport/reporter (server running), and with `dot` + Playwright's `json` reporter. Wall time
// and peak RSS of each, as ratios to plain `dot`; every variant runs `rounds` times, interleaved,
// and the median counts (2 shared cores make single runs noisy). CPU time (user + system of the
// whole process tree) is reported beside wall time because it is far less sensitive to other load.
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { testBody } from './lib/bodies.mjs';
import { api } from './lib/http.mjs';
import { measure, median, processCpu, untilIdle } from './lib/measure.mjs';
import { initDataDir, removeDir, root, startServer, tempDir } from './lib/server.mjs';

const playwrightCli = join(root, 'node_modules/@playwright/test/cli.js');
const reporterPath = join(root, 'packages/reporter/dist/index.js');

function writeSuite(dir, tests) {
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const perFile = 100;
  for (let f = 0; f * perFile < tests; f++) {
    const body = [`import { test, expect } from '@playwright/test';`, `test.describe('area ${f}', () => {`];
    for (let t = 0; t < Math.min(perFile, tests - f * perFile); t++) {
      body.push(`  test('computes case ${t}', async () => {`, `    await test.step('add', async () => { expect(${t} + 1).toBe(${t + 1}); });`, `  });`);
    }
    body.push('});');
    writeFileSync(join(dir, `area-${String(f).padStart(3, '0')}.spec.ts`), body.join('\n') + '\n');
  }
  writeFileSync(join(dir, 'playwright.config.ts'), `import { defineConfig } from '@playwright/test';\nexport default defineConfig({ testDir: '.', workers: 2, retries: 0, outputDir: './test-results' });\n`);
}

/**
 * How long the server takes to answer the finish of a run of `tests` results (batches of 500 sent
 * first), median of 3: the part of the reporter's onEnd that is the server's work (the flakiness
 * recompute of the run's cases and the webhooks queued in the finishing transaction).
 */
async function finishLatency(url, apiKey, projectId, tests) {
  const call = api(url, apiKey);
  const samples = [];
  for (let round = 0; round < 3; round++) {
    const run = await call('POST', '/runs', { projectId, status: 'running' });
    for (let from = 0; from < tests; from += 500) {
      const batch = Array.from({ length: Math.min(500, tests - from) }, (_, k) => testBody({ runId: run.id, projectId, i: from + k }));
      await call('POST', '/tests/batch', { tests: batch });
    }
    const started = performance.now();
    await call('PATCH', `/runs/${run.id}`, { status: 'passed', totalTests: tests, passedTests: tests, failedTests: 0, skippedTests: 0, flakyTests: 0, duration: 1000 });
    samples.push(performance.now() - started);
  }
  return median(samples);
}


/** Median, lowest, highest and interquartile range of a list. */
export function spreadOf(xs) {
  const s = [...xs].sort((a, b) => a - b);
  const at = (q) => s[Math.min(s.length - 1, Math.max(0, Math.round(q * (s.length - 1))))];
  return { median: median(s), min: s[0], max: s[s.length - 1], q1: at(0.25), q3: at(0.75) };
}

const points = (x) => `${x >= 0 ? '+' : ''}${x.toFixed(1)}`;

export async function benchOverhead({ quick, log, reporterTests }) {
  const tests = reporterTests ?? (quick ? 200 : 2_000);
  // The verdict is testreport − json, so each round runs those two back to back, in turns first
  // (testreport then json, json then testreport): single runs move by ±4% on the shared machine,
  // and two runs next to each other differ less than two further apart (docs/benchmarks.md). Twelve
  // rounds: with six, a median landed either side of +3 points for a cost near 0. A large suite
  // takes minutes per run: five rounds there (still an odd count for the median).
  // BENCH_OVERHEAD_ROUNDS=n: fewer rounds where one round of a large suite takes half an hour.
  const rounds = Number(process.env.BENCH_OVERHEAD_ROUNDS) || (quick ? 1 : tests > 10_000 ? 5 : 12);
  // Inside the repository so the suite resolves @playwright/test from the root node_modules.
  const suiteDir = join(root, '.tmp', 'bench-suite');
  writeSuite(suiteDir, tests);
  const dataDir = tempDir('overhead');
  try {
    const { projectId, apiKey } = initDataDir(dataDir);
    const server = await startServer(dataDir);
    try {
      const base = { ...process.env, CI: '', FORCE_COLOR: '0' };
      const variants = {
        dot: { args: ['--reporter=dot'], env: base },
        'dot+testreport': {
          args: [`--reporter=dot,${reporterPath}`],
          env: { ...base, TESTREPORT_URL: server.url, TESTREPORT_API_KEY: apiKey, TESTREPORT_PROJECT_ID: projectId },
        },
        'dot+json': { args: ['--reporter=dot,json'], env: { ...base, PLAYWRIGHT_JSON_OUTPUT_NAME: join(suiteDir, 'report.json') } },
      };
      const samples = Object.fromEntries(Object.keys(variants).map((k) => [k, []]));
      const loads = [];
      for (let round = 0; round < rounds; round++) {
        const pair = round % 2 === 0 ? ['dot+testreport', 'dot+json'] : ['dot+json', 'dot+testreport'];
        // dot only scales the difference (points of dot's wall) and gives the ratios: every third
        // round, first, so the pair stays adjacent.
        const names = round % 3 === 0 ? ['dot', ...pair] : pair;
        for (const name of names) {
          const v = variants[name];
          // What the server does after a testreport run (the finish's recompute, the insights fold)
          // ran into the next variant's time, json's in two rounds of three (140–250 ms of server
          // CPU there): each variant now starts with the server idle (docs/benchmarks.md).
          await untilIdle(server.pid);
          const cpu0 = processCpu(server.pid);
          const r = await measure(process.execPath, [playwrightCli, 'test', '-c', suiteDir, ...v.args], { env: v.env, cwd: suiteDir });
          if (r.code !== 0) throw new Error(`${name} exited ${r.code}: ${(r.stderr || r.stdout).slice(-600)}`);
          r.serverCpuMs = (processCpu(server.pid) - cpu0) * 1000;
          samples[name].push(r);
        }
        loads.push(loadavg()[0]);
      }
      const result = { tests, rounds, variants: {}, loads };
      for (const [name, rs] of Object.entries(samples)) {
        result.variants[name] = { wallMs: median(rs.map((r) => r.wallMs)), cpuMs: median(rs.map((r) => r.cpuMs)), peakRssMb: median(rs.map((r) => r.peakRssMb)), serverCpuMs: median(rs.map((r) => r.serverCpuMs)), wallMsAll: rs.map((r) => Math.round(r.wallMs)), cpuMsAll: rs.map((r) => Math.round(r.cpuMs)) };
      }
      const dot = result.variants.dot;
      for (const v of Object.values(result.variants)) {
        v.wallRatio = v.wallMs / dot.wallMs;
        v.rssRatio = v.peakRssMb / dot.peakRssMb;
        v.cpuRatio = v.cpuMs / dot.cpuMs;
      }
      for (const [name, v] of Object.entries(result.variants)) {
        log(`overhead ${name.padEnd(15)} ${tests} tests: wall ${(v.wallMs / 1000).toFixed(2)} s (×${v.wallRatio.toFixed(3)})  CPU ${(v.cpuMs / 1000).toFixed(2)} s (×${v.cpuRatio.toFixed(3)})  peak RSS ${v.peakRssMb.toFixed(0)} MB (×${v.rssRatio.toFixed(2)})  the server's CPU meanwhile ${v.serverCpuMs.toFixed(0)} ms`);
      }
      const ours = result.variants['dot+testreport'];
      const json = result.variants['dot+json'];
      // Paired rounds (issue 30): each round's own difference, testreport − json, in points of dot's
      // median, so a load change between rounds moves both runs of a round, not the verdict.
      const per = (key) => samples['dot+testreport'].map((o, i) => ((o[key] - samples['dot+json'][i][key]) / dot[key]) * 100);
      const wallDiff = spreadOf(per('wallMs'));
      const cpuDiff = spreadOf(per('cpuMs'));
      // The order within a pair, apart: a difference between the two would be a bias of position.
      const firstOf = (first) => median(per('wallMs').filter((_, i) => (i % 2 === 0) === first));
      result.paired = { wallPoints: per('wallMs'), cpuPoints: per('cpuMs'), wall: wallDiff, cpu: cpuDiff, wallTestreportFirst: firstOf(true), wallJsonFirst: rounds > 1 ? firstOf(false) : null };
      // The target (issues 18 and 30): no more than 3 points of wall time above Playwright's own json
      // reporter, judged on the median of the rounds' differences.
      result.meetsTargets = wallDiff.median <= 3;
      log(`overhead testreport vs dot: ${((ours.wallRatio - 1) * 100).toFixed(1)}% wall, ${((ours.cpuRatio - 1) * 100).toFixed(1)}% CPU; json ${((json.wallRatio - 1) * 100).toFixed(1)}% wall, ${((json.cpuRatio - 1) * 100).toFixed(1)}% CPU (medians of each variant)`);
      log(`overhead testreport − json, ${rounds} paired rounds (points of dot's median): wall median ${points(wallDiff.median)} (rounds ${result.paired.wallPoints.map(points).join(' ')}; IQR ${points(wallDiff.q1)}…${points(wallDiff.q3)}; testreport first ${points(result.paired.wallTestreportFirst)}${rounds > 1 ? `, json first ${points(result.paired.wallJsonFirst)}` : ''}), CPU median ${points(cpuDiff.median)} (IQR ${points(cpuDiff.q1)}…${points(cpuDiff.q3)}); load ${loads.map((l) => l.toFixed(1)).join(' ')}  (target wall ≤ +3 points: ${result.meetsTargets ? 'meets target' : 'misses target'})`);
      result.finishMs = await finishLatency(server.url, apiKey, projectId, Math.min(tests, 2_000));
      log(`overhead the server's finish (PATCH /runs/:id) of a run of ${Math.min(tests, 2_000)} tests, which onEnd awaits: median ${result.finishMs.toFixed(0)} ms = ${((result.finishMs / dot.wallMs) * 100).toFixed(1)} points of dot's wall time`);
      return result;
    } finally {
      await server.stop();
    }
  } finally {
    removeDir(dataDir);
    rmSync(suiteDir, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  // node bench/overhead.mjs [--quick] [--tests N]
  const i = process.argv.indexOf('--tests');
  console.log(`overhead load average ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
  await benchOverhead({ quick: process.argv.includes('--quick'), reporterTests: i > 0 ? Number(process.argv[i + 1]) : undefined, log: (l) => console.log(l) });
}
