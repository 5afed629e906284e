// Upload: `reporter upload` of a generated Playwright JSON report of 10,000 tests; wall time and
// peak RSS of the CLI process.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pickStatus, seededRandom, testIdentity } from './lib/bodies.mjs';
import { measure } from './lib/measure.mjs';
import { openBenchDatabase } from './lib/database.mjs';
import { cliBin, initDataDir, removeDir, startServer, tempDir } from './lib/server.mjs';

/** A report in the shape Playwright's json reporter writes (see /work/shared/fixtures/playwright-json). */
export function playwrightJsonReport(tests) {
  const rand = seededRandom(11);
  const files = new Map();
  const startTime = new Date().toISOString();
  const stats = { expected: 0, unexpected: 0, flaky: 0, skipped: 0 };
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
    if (!files.has(file)) files.set(file, { title: file, file, line: 0, column: 0, specs: [], suites: [{ title: `${file.split('/')[0]} page`, file, line: 3, column: 6, specs: [] }] });
    files.get(file).suites[0].specs.push({
      title, ok: status !== 'failed', tags: i % 3 === 0 ? ['smoke'] : [], id: `spec-${i}`, file, line: lineNumber, column: 3,
      tests: [{ timeout: 30000, annotations: [], expectedStatus: status === 'skipped' ? 'skipped' : 'passed', projectId: 'chromium', projectName: 'chromium', results, status: outcome }],
    });
  }
  return {
    config: { configFile: '/repo/playwright.config.ts', rootDir: '/repo/tests', version: '1.65.1', workers: 4, fullyParallel: true, metadata: { actualWorkers: 4 }, projects: [{ id: 'chromium', name: 'chromium', retries: 1, testDir: '/repo/tests', timeout: 30000 }], shard: null },
    suites: [...files.values()],
    errors: [],
    stats: { startTime, duration: 123456, ...stats },
  };
}

export async function benchUpload({ quick, log, dbKind = 'sqlite' }) {
  // Quick mode is a smoke check of the path; the targets are for 10,000 tests.
  const tests = quick ? 2_000 : 10_000;
  const dataDir = tempDir('upload');
  const db = await openBenchDatabase(dbKind, dataDir);
  try {
    const { projectId, apiKey } = initDataDir(dataDir, db);
    const reportPath = join(dataDir, 'results.json');
    writeFileSync(reportPath, JSON.stringify(playwrightJsonReport(tests)));
    const server = await startServer(dataDir, { db });
    try {
      const env = { ...process.env, TESTREPORT_URL: server.url, TESTREPORT_API_KEY: apiKey, TESTREPORT_PROJECT_ID: projectId, FORCE_COLOR: '0', CI: '' };
      const r = await measure(process.execPath, [cliBin, 'upload', reportPath], { env });
      if (r.code !== 0) throw new Error(`reporter upload exited ${r.code}: ${(r.stderr || r.stdout).slice(-600)}`);
      const result = { tests, seconds: r.wallMs / 1000, peakRssMb: r.peakRssMb };
      if (tests === 10_000) result.meetsTargets = result.seconds <= 10 && result.peakRssMb <= 200;
      log(`upload  reporter upload of ${tests.toLocaleString('en-US')} tests (Playwright JSON): ${result.seconds.toFixed(2)} s, peak RSS ${result.peakRssMb.toFixed(0)} MB (targets for 10,000: ≤ 10 s, ≤ 200 MB)`);
      return result;
    } finally {
      await server.stop();
    }
  } finally {
    await db.drop();
    removeDir(dataDir);
  }
}
