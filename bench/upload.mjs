// Upload: `reporter upload` of generated Playwright JSON reports (10,000 and 200,000 tests); wall
// time, rate and peak RSS of the CLI process.
import { closeSync, openSync, statSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { pickStatus, seededRandom, testIdentity } from './lib/bodies.mjs';
import { fmt } from './ingest.mjs';
import { measure } from './lib/measure.mjs';
import { openBenchDatabase } from './lib/database.mjs';
import { cliBin, initDataDir, removeDir, startServer, tempDir } from './lib/server.mjs';

/**
 * A report in the shape Playwright's json reporter writes (see test/fixtures/reports/playwright-json),
 * one file suite (50 tests in one describe) at a time: `write` gets the text in pieces, so a
 * 200,000-test report (117 MB) is never held whole by the bench.
 */
export function writePlaywrightJsonReport(tests, write) {
  const rand = seededRandom(11);
  const startTime = new Date().toISOString();
  const stats = { expected: 0, unexpected: 0, flaky: 0, skipped: 0 };
  const config = { configFile: '/repo/playwright.config.ts', rootDir: '/repo/tests', version: '1.65.1', workers: 4, fullyParallel: true, metadata: { actualWorkers: 4 }, projects: [{ id: 'chromium', name: 'chromium', retries: 1, testDir: '/repo/tests', timeout: 30000 }], shard: null };
  write(`{"config":${JSON.stringify(config)},"suites":[`);
  let current = null;
  let files = 0;
  const flush = () => {
    if (current) write((files++ ? ',' : '') + JSON.stringify(current));
  };
  for (let i = 0; i < tests; i++) {
    const { filePath, title, lineNumber } = testIdentity(i);
    const file = filePath.replace(/^tests\//, '');
    const status = pickStatus(rand());
    const duration = Math.round(200 + rand() * 3000);
    const result = (retry, s) => ({
      workerIndex: i % 4, parallelIndex: i % 4, status: s, duration, retry, startTime,
      errors: s === 'failed' ? [{ message: 'Error: expect(received).toBe(expected)\n\nExpected: 4\nReceived: 3' }] : [],
      ...(s === 'failed' ? { error: { message: 'Error: expect(received).toBe(expected)\n\nExpected: 4\nReceived: 3', stack: `Error: expect failed\n    at ${file}:${lineNumber}:5` } } : {}),
      stdout: [], stderr: [], attachments: [],
      steps: [{ title: 'open the page', duration: Math.round(duration / 2) }, { title: 'check the total', duration: Math.round(duration / 3) }],
    });
    const results = status === 'flaky' ? [result(0, 'failed'), result(1, 'passed')] : [result(0, status)];
    const outcome = { passed: 'expected', failed: 'unexpected', flaky: 'flaky', skipped: 'skipped' }[status];
    stats[outcome]++;
    if (current?.file !== file) {
      flush();
      current = { title: file, file, line: 0, column: 0, specs: [], suites: [{ title: `${file.split('/')[0]} page`, file, line: 3, column: 6, specs: [] }] };
    }
    current.suites[0].specs.push({
      title, ok: status !== 'failed', tags: i % 3 === 0 ? ['smoke'] : [], id: `spec-${i}`, file, line: lineNumber, column: 3,
      tests: [{ timeout: 30000, annotations: [], expectedStatus: status === 'skipped' ? 'skipped' : 'passed', projectId: 'chromium', projectName: 'chromium', results, status: outcome }],
    });
  }
  flush();
  write(`],"errors":[],"stats":${JSON.stringify({ startTime, duration: 123456, ...stats })}}`);
}

function writeReportFile(path, tests) {
  const fd = openSync(path, 'w');
  try {
    let pending = '';
    writePlaywrightJsonReport(tests, (piece) => {
      pending += piece;
      if (pending.length > 1 << 20) {
        writeSync(fd, pending);
        pending = '';
      }
    });
    writeSync(fd, pending);
  } finally {
    closeSync(fd);
  }
  return statSync(path).size;
}

/** `reporter upload` of a generated report of `tests` tests into a fresh server: wall time and peak RSS of the CLI. */
export async function uploadOnce(tests, dbKind) {
  const dataDir = tempDir('upload');
  const db = await openBenchDatabase(dbKind, dataDir);
  try {
    const { projectId, apiKey } = initDataDir(dataDir, db);
    const reportPath = join(dataDir, 'results.json');
    const bytes = writeReportFile(reportPath, tests);
    const server = await startServer(dataDir, { db });
    try {
      const env = { ...process.env, TESTREPORT_URL: server.url, TESTREPORT_API_KEY: apiKey, TESTREPORT_PROJECT_ID: projectId, FORCE_COLOR: '0', CI: '' };
      const r = await measure(process.execPath, [cliBin, 'upload', reportPath], { env });
      if (r.code !== 0) throw new Error(`reporter upload exited ${r.code}: ${(r.stderr || r.stdout).slice(-600)}`);
      const seconds = r.wallMs / 1000;
      return { tests, reportMb: bytes / 2 ** 20, seconds, testsPerSecond: tests / seconds, peakRssMb: r.peakRssMb, cpuSeconds: r.cpuMs / 1000 };
    } finally {
      await server.stop();
    }
  } finally {
    await db.drop();
    removeDir(dataDir);
  }
}

/**
 * Two uploads: 10,000 tests (targets: ≤ 5 s, ≤ 150 MB peak RSS) and a large report, 200,000 tests
 * (117 MB), whose rate bench/run.mjs compares with the server's batch ingestion measured in the
 * same run (target ≥ 50%) and whose peak RSS must stay flat: at most twice the 10,000-test one for
 * 20× the report. Quick mode: 2,000 and 20,000 tests, no targets.
 */
export async function benchUpload({ quick, log, dbKind = 'sqlite' }) {
  const small = await uploadOnce(quick ? 2_000 : 10_000, dbKind);
  const result = { tests: small.tests, seconds: small.seconds, peakRssMb: small.peakRssMb, cpuSeconds: small.cpuSeconds };
  if (!quick) result.meetsTargets = small.seconds <= 5 && small.peakRssMb <= 150;
  log(`upload  reporter upload of ${small.tests.toLocaleString('en-US')} tests (Playwright JSON, ${small.reportMb.toFixed(1)} MB): ${small.seconds.toFixed(2)} s, peak RSS ${small.peakRssMb.toFixed(0)} MB, CLI CPU ${small.cpuSeconds.toFixed(2)} s${quick ? '' : `  (targets: ≤ 5 s, ≤ 150 MB: ${result.meetsTargets ? 'meets target' : 'misses target'})`}`);
  const large = await uploadOnce(quick ? 20_000 : 200_000, dbKind);
  result.large = { ...large, rssRatio: large.peakRssMb / small.peakRssMb };
  result.large.flat = result.large.rssRatio <= 2;
  log(`upload  reporter upload of ${large.tests.toLocaleString('en-US')} tests (${large.reportMb.toFixed(0)} MB): ${large.seconds.toFixed(1)} s = ${fmt(large.testsPerSecond)} tests/s, peak RSS ${large.peakRssMb.toFixed(0)} MB (×${result.large.rssRatio.toFixed(2)} of the ${small.tests.toLocaleString('en-US')}-test upload; flat = ≤ ×2: ${result.large.flat ? 'yes' : 'no'}), CLI CPU ${large.cpuSeconds.toFixed(1)} s`);
  return result;
}
