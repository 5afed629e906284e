import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '@testreport/server/testing';

// examples/sdk-script/report.mjs, run in-process against the real server (vitest maps its
// `@testreport/client` import to these sources), so the documented example cannot rot.
let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(async () => {
  await t?.close();
});

it('examples/sdk-script reports a run with tests and prints the flakiness table', async () => {
  // @ts-expect-error: a plain .mjs example without types
  const { main } = (await import('../../examples/sdk-script/report.mjs')) as { main: (o: object) => Promise<{ runId: string; tests: unknown[]; flakiness: { data: Array<{ fullTitle: string }> } }> };
  const lines: string[] = [];
  const out = await main({ url: t.url, apiKey: t.apiKey, log: (l: string) => lines.push(l) });
  expect(out.tests).toHaveLength(4);
  expect(out.flakiness.data.map((e) => e.fullTitle)).toContain('checkout > applies a coupon');
  const run = await t.api('GET', `/runs/${out.runId}`, { auth: t.apiKey });
  expect(run.body).toMatchObject({ status: 'failed', totalTests: 4, failedTests: 1, flakyTests: 1 });
  const artifacts = await t.api('GET', `/artifacts?runId=${out.runId}`, { auth: t.apiKey });
  expect(artifacts.body.data).toHaveLength(1);
  expect(lines.join('\n')).toContain('Run finished: failed (1/4 passed)');
});
