// Where the reporter's cost goes in Playwright's runner process (docs/benchmarks.md, "The reporter in
// Playwright's process"); not part of `npm run bench`. The bench's suite with dot + a timestamp
// reporter before and after the one measured; per run: wall, CPU of the process tree (GNU time), CPU
// of the runner alone (bench/lib/runner-stats.cjs), the server's CPU, the reporter's load time and
// onEnd, interleaved rounds, medians.
//   node bench/reporter-runner.mjs rounds=3 tests=2000 variants=ours,json,dot [ours=<built entry>] [old=<another build's entry>] [prof=<dir for --cpu-prof>]
import { mkdirSync, rmSync, writeFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { measure, processCpu } from './lib/measure.mjs';
import { initDataDir, removeDir, root, startServer, tempDir } from './lib/server.mjs';
const arg = Object.fromEntries(process.argv.slice(2).map((a) => a.split('=')));
const tests = Number(arg.tests ?? 2000), rounds = Number(arg.rounds ?? 3);
const variants = (arg.variants ?? 'ours,json,dot').split(',');
const ours = arg.ours ?? join(root, 'packages/reporter/dist/index.js');
const playwrightCli = join(root, 'node_modules/@playwright/test/cli.js');
const suiteDir = join(root, '.tmp', 'bench-suite');
rmSync(suiteDir, { recursive: true, force: true }); mkdirSync(suiteDir, { recursive: true });
for (let f = 0; f * 100 < tests; f++) {
  const body = [`import { test, expect } from '@playwright/test';`, `test.describe('area ${f}', () => {`];
  for (let t = 0; t < Math.min(100, tests - f * 100); t++) body.push(`  test('computes case ${t}', async () => {`, `    await test.step('add', async () => { expect(${t} + 1).toBe(${t + 1}); });`, `  });`);
  body.push('});');
  writeFileSync(join(suiteDir, `area-${String(f).padStart(3, '0')}.spec.ts`), body.join('\n') + '\n');
}
writeFileSync(join(suiteDir, 'playwright.config.ts'), `import { defineConfig } from '@playwright/test';\nexport default defineConfig({ testDir: '.', workers: 2, retries: 0, outputDir: './test-results' });\n`);
const m1 = join(root, 'bench/lib/marks-before.mjs'), m2 = join(root, 'bench/lib/marks-after.mjs');
const dataDir = tempDir('rcpu');
const { projectId, apiKey } = initDataDir(dataDir);
const server = await startServer(dataDir);
mkdirSync(join(root, '.tmp'), { recursive: true });
const stats = join(root, '.tmp/runner-stats.ndjson');
const med = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const out = {};
try {
  const base = { ...process.env, CI: '', FORCE_COLOR: '0', NODE_OPTIONS: `--require ${join(root, 'bench/lib/runner-stats.cjs')}`, RUNNER_STATS: stats };
  const V = {
    dot: { rep: `dot,${m1},${m2}`, env: base },
    ours: { rep: `dot,${m1},${ours},${m2}`, env: { ...base, TESTREPORT_URL: server.url, TESTREPORT_API_KEY: apiKey, TESTREPORT_PROJECT_ID: projectId } },
    old: { rep: `dot,${m1},${arg.old ?? join(root, '.tmp/old-reporter-dist/index.js')},${m2}`, env: { ...base, TESTREPORT_URL: server.url, TESTREPORT_API_KEY: apiKey, TESTREPORT_PROJECT_ID: projectId } },
    json: { rep: `dot,${m1},json,${m2}`, env: { ...base, PLAYWRIGHT_JSON_OUTPUT_NAME: join(suiteDir, 'report.json') } },
  };
  for (let r = 0; r < rounds; r++) {
    const order = [...variants.slice(r % variants.length), ...variants.slice(0, r % variants.length)];
    for (const name of order) {
      const v = V[name];
      rmSync(stats, { force: true });
      const s0 = processCpu(server.pid);
      const prof = arg.prof ? ['--cpu-prof', `--cpu-prof-dir=${arg.prof}/${name}-${r}`] : [];
      const res = await measure(process.execPath, [...prof, playwrightCli, 'test', '-c', suiteDir, `--reporter=${v.rep}`], { env: v.env, cwd: suiteDir });
      const s1 = processCpu(server.pid);
      if (res.code !== 0) throw new Error(`${name} exited ${res.code}: ${res.stderr.slice(-800)}`);
      const st = JSON.parse(readFileSync(stats, 'utf8').trim().split('\n')[0]);
      const m = st.marks;
      const row = { wall: Math.round(res.wallMs), treeCpu: Math.round(res.cpuMs), runnerCpu: Math.round(st.cpuMs), serverCpu: Math.round((s1 - s0) * 1000), load: Math.round(m.load2 - m.load1), begin: Math.round(m.begin1), firstTest: Math.round(m.firstTest1), endOurs: Math.round(m.end2 - m.end1), up: Math.round(st.upMs) };
      (out[name] ??= []).push(row);
      console.log(name.padEnd(5), JSON.stringify(row), res.stderr.split('\n').filter((l) => l.includes('[testreport]')).join(' | ').slice(0, 200));
    }
  }
  for (const [name, rows] of Object.entries(out)) {
    const keys = Object.keys(rows[0]);
    console.log('MEDIAN', name.padEnd(5), keys.map((k) => `${k} ${med(rows.map((x) => x[k]))}`).join('  '));
  }
} finally {
  await server.stop();
  removeDir(dataDir);
}
