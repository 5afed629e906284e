// Reports a run with a few test results from a plain script, attaches a screenshot, finishes the
// run and prints the project's flakiness table. Reads TESTREPORT_URL and TESTREPORT_API_KEY.
//
//   TESTREPORT_URL=http://localhost:4000 TESTREPORT_API_KEY=trk_live_… node report.mjs
import { pathToFileURL } from 'node:url';
import { crc32, deflateSync } from 'node:zlib';
import { ApiError, ConnectionError, KeyValidationError, TestReportClient } from '@testreport/client';

/** A 1×1 PNG built in memory, so the example carries no binary file. */
function tinyPng() {
  const be32 = (n) => { const b = Buffer.alloc(4); b.writeUInt32BE(n >>> 0); return b; };
  const chunk = (type, data) => { const td = Buffer.concat([Buffer.from(type), data]); return Buffer.concat([be32(data.length), td, be32(crc32(td))]); };
  const ihdr = Buffer.concat([be32(1), be32(1), Buffer.from([8, 6, 0, 0, 0])]);
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk('IHDR', ihdr), chunk('IDAT', deflateSync(Buffer.from([0, 255, 0, 0, 255]))), chunk('IEND', Buffer.alloc(0))]);
}

export async function main({ url = process.env.TESTREPORT_URL, apiKey = process.env.TESTREPORT_API_KEY, log = console.log } = {}) {
  const client = new TestReportClient({ url, apiKey, userAgent: 'sdk-script-example/1.0' });

  // Offline key checks, then GET /me: a bad, inactive or wrong-project key stops here.
  const me = await client.verify();
  if (me.type !== 'apiKey') throw new Error('This example expects an API key');
  const projectId = me.apiKey.projectId;
  log(`Reporting to project "${me.project.name}" (${projectId}) at ${client.appUrl}`);

  const started = Date.now();
  const run = await client.runs.create({
    projectId, status: 'running', branch: 'main', commitSha: 'abc1234', ciProvider: 'script', runTitle: 'SDK example run', tags: ['@example'],
  });
  const suite = await client.testSuites.upsert({ runId: run.id, projectId, title: 'checkout', filePath: 'tests/checkout.spec.ts' });
  log(`Run ${run.id} created; suite "${suite.title}" ready`);

  const base = { runId: run.id, projectId, filePath: 'tests/checkout.spec.ts' };
  const results = [
    { ...base, title: 'adds an item to the cart', fullTitle: 'checkout > adds an item to the cart', status: 'passed', duration: 812,
      steps: [{ title: 'page.goto(/shop)', category: 'action', duration: 300 }, { title: 'expect(cart).toHaveCount(1)', category: 'assertion', duration: 12 }] },
    { ...base, title: 'applies a coupon', fullTitle: 'checkout > applies a coupon', status: 'flaky', isFlaky: true, retries: 1, duration: 1430 },
    { ...base, title: 'pays by card', fullTitle: 'checkout > pays by card', status: 'failed', duration: 5023,
      error: { message: 'Timed out 5000ms waiting for expect(locator).toBeVisible()', stack: 'at tests/checkout.spec.ts:42:18' } },
    { ...base, title: 'pays by invoice', fullTitle: 'checkout > pays by invoice', status: 'skipped', duration: 0 },
  ];
  // createMany splits into batches of up to 500 and sends a few at a time; here one batch is enough.
  const { data: created } = await client.tests.createMany(results);
  log(`Stored ${created.length} results`);

  const failed = created.find((t) => t.status === 'failed');
  const shot = await client.artifacts.upload({ file: tinyPng(), fileName: 'pays-by-card.png', type: 'screenshot', runId: run.id, projectId, testId: failed.id });
  log(`Uploaded ${shot.fileName} (${shot.fileSize} bytes)`);

  const count = (status) => results.filter((r) => r.status === status).length;
  const finished = await client.runs.update(run.id, {
    status: count('failed') > 0 ? 'failed' : 'passed',
    totalTests: results.length, passedTests: count('passed'), failedTests: count('failed'), skippedTests: count('skipped'), flakyTests: count('flaky'),
    duration: Date.now() - started,
  });
  log(`Run finished: ${finished.status} (${finished.passedTests}/${finished.totalTests} passed)`);

  const flakiness = await client.flakiness.list({ projectId, limit: 20 });
  log(`\nFlaky tests in this project (${flakiness.summary.totalFlakyTests}, average score ${flakiness.summary.averageFlakinessScore}):`);
  const table = flakiness.data.map((e) => ({ test: e.fullTitle, score: e.flakinessScore, flakyRuns: `${e.flakyRuns}/${e.totalRuns}`, quarantined: e.isQuarantined }));
  if (log === console.log) console.table(table);
  else log(JSON.stringify(table));
  return { runId: run.id, tests: created, flakiness };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  main().catch((err) => {
    // Every SDK error is one readable line; no stack trace needed for these.
    if (err instanceof ApiError || err instanceof ConnectionError || err instanceof KeyValidationError) console.error(`error: ${err.message}`);
    else console.error(err);
    process.exitCode = 1;
  });
}
