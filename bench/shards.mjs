// Shards: how even `reporter shard-plan` makes CI shards compared with Playwright's own --shard.
// A generated suite (files of very different lengths, as real suites have: a few slow checkout
// flows, many quick component checks) gets a history of finished runs in a real server; then, for
// several shard counts, both splits are timed against a fresh run of the same suite (durations
// jittered as CI machines jitter). Figure: the spread between the slowest and the fastest shard,
// and the slowest shard (the build's wall time), per method.
import { openBenchDatabase } from './lib/database.mjs';
import { seededRandom } from './lib/bodies.mjs';
import { api } from './lib/http.mjs';
import { initDataDir, removeDir, startServer, tempDir } from './lib/server.mjs';

/** Files in alphabetical order (Playwright's order), each with its tests' typical durations in ms. */
export function generateSuite(files, rand) {
  const suite = [];
  for (let f = 0; f < files; f++) {
    // Lengths spread over two orders of magnitude: tests per file 1..40, a test 0.2..~20 s (log-uniform).
    const tests = 1 + Math.floor(rand() ** 2 * 40);
    const base = 200 * Math.exp(rand() * Math.log(100));
    const durations = Array.from({ length: tests }, () => Math.round(base * (0.5 + rand())));
    suite.push({ file: `tests/area-${String(f % 17).padStart(2, '0')}/flow-${String(f).padStart(4, '0')}.spec.ts`, durations });
  }
  return suite.sort((a, b) => (a.file < b.file ? -1 : 1));
}

/** One run's durations: every test ±20 % (machines, network, caches). */
const jittered = (suite, rand) => suite.map((s) => ({ file: s.file, durations: s.durations.map((d) => Math.round(d * (0.8 + rand() * 0.4))) }));

/**
 * Playwright's --shard (1.65, not fullyParallel): files are test groups in order; each shard takes
 * the groups that start inside its slice of the test count. Counts tests, not time.
 */
export function playwrightShards(suite, total) {
  const sizes = suite.map((s) => s.durations.length);
  const all = sizes.reduce((a, b) => a + b, 0);
  const slice = Array.from({ length: total }, () => Math.floor(all / total));
  for (let i = 0; i < all - slice.reduce((a, b) => a + b, 0); i++) slice[i % total]++;
  const shards = Array.from({ length: total }, () => []);
  let position = 0;
  let shard = 0;
  let end = slice[0];
  for (const [i, s] of suite.entries()) {
    while (shard < total - 1 && position >= end) end += slice[++shard];
    shards[shard].push(s.file);
    position += sizes[i];
  }
  return shards;
}

const spreadOf = (shards, run) => {
  const time = new Map(run.map((s) => [s.file, s.durations.reduce((a, b) => a + b, 0)]));
  const totals = shards.map((files) => files.reduce((a, f) => a + (time.get(f) ?? 0), 0));
  return { slowest: Math.max(...totals), fastest: Math.min(...totals), spread: Math.max(...totals) - Math.min(...totals) };
};

export async function benchShards({ quick, log, dbKind = 'sqlite' }) {
  const rand = seededRandom(12);
  const suite = generateSuite(quick ? 80 : 300, rand);
  const historyRuns = quick ? 3 : 10;
  const totals = quick ? [2, 4, 8] : [2, 4, 8, 16];
  const dataDir = tempDir('shards');
  const db = await openBenchDatabase(dbKind, dataDir);
  try {
    const { projectId, apiKey } = initDataDir(dataDir, db);
    const server = await startServer(dataDir, { db });
    try {
      const call = api(server.url, apiKey);
      for (let r = 0; r < historyRuns; r++) {
        const run = await call('POST', '/runs', { projectId, status: 'running' });
        const tests = jittered(suite, rand).flatMap((s) => s.durations.map((d, i) => ({ runId: run.id, projectId, title: `t${i}`, fullTitle: `${s.file} > t${i}`, filePath: s.file, status: 'passed', duration: d })));
        for (let i = 0; i < tests.length; i += 500) await call('POST', '/tests/batch', { tests: tests.slice(i, i + 500) });
        await call('PATCH', `/runs/${run.id}`, { status: 'passed' });
      }
      const next = jittered(suite, rand);
      const ideal = next.reduce((a, s) => a + s.durations.reduce((x, y) => x + y, 0), 0);
      const rows = [];
      for (const total of totals) {
        const plan = await call('GET', `/projects/${projectId}/shard-plan?total=${total}`);
        const planned = spreadOf(plan.shards.map((s) => s.files), next);
        const pw = spreadOf(playwrightShards(suite, total), next);
        const row = { total, ideal: ideal / total, plan: planned, playwright: pw };
        rows.push(row);
        const s = (ms) => `${(ms / 1000).toFixed(0)} s`;
        log(
          `shards  ${String(total).padStart(2)} shards of ${suite.length} files: spread slowest−fastest ${s(planned.spread)} with shard-plan vs ${s(pw.spread)} with --shard; ` +
            `slowest shard ${s(planned.slowest)} vs ${s(pw.slowest)} (ideal ${s(ideal / total)})`,
        );
      }
      return { files: suite.length, tests: suite.reduce((a, s) => a + s.durations.length, 0), historyRuns, rows };
    } finally {
      await server.stop();
    }
  } finally {
    await db.drop();
    removeDir(dataDir);
  }
}
