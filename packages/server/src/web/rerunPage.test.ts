import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../testing/harness.js';
import { createRun, postTests, testBody } from '../testing/results.js';

// The run page of a CI build run twice (docs/decisions.md §13): per test only its latest attempt
// counts, and a test that failed before and passes now reads flaky; tests not run again keep their
// first attempt's result.
let t: TestServer;
let runId: string;

const result = (fullTitle: string, filePath: string, status: 'passed' | 'failed' | 'skipped') =>
  testBody(runId, t.projectId, { title: fullTitle, fullTitle, filePath, status, ...(status === 'failed' ? { error: { message: `Error: ${fullTitle}` } } : {}) });

beforeAll(async () => {
  t = await startTestServer();
  runId = (await createRun(t, { branch: 'main', ciBuildId: 'build-7', attempt: 1 })).id;
  await postTests(t, [
    result('fixed', 'a.spec.ts', 'failed'),
    result('steady', 'a.spec.ts', 'passed'),
    result('broken', 'b.spec.ts', 'failed'),
    result('skipped', 'b.spec.ts', 'skipped'),
    result('regressed', 'b.spec.ts', 'passed'),
  ]);
  const again = await t.api('POST', '/runs', { auth: t.apiKey, body: { projectId: t.projectId, status: 'running', branch: 'main', ciBuildId: 'build-7', attempt: 2 } });
  expect(again.body.id).toBe(runId);
  await postTests(t, [result('fixed', 'a.spec.ts', 'passed'), result('broken', 'b.spec.ts', 'failed'), result('regressed', 'b.spec.ts', 'failed')]);
}, 60_000);
afterAll(() => t?.close());

/** The file table's row of `file`: tests, passed, failed, flaky, skipped. */
function fileRow(html: string, file: string): number[] {
  const row = new RegExp(`<td class="mono">${file.replace('.', '\\.')}</td>((?:\\s*<td class="num[^"]*">\\d+</td>){5})`).exec(html);
  if (!row) throw new Error(`no row for ${file}`);
  return [...row[1]!.matchAll(/>(\d+)</g)].map((m) => Number(m[1]));
}

describe('the run page of a re-run CI build', () => {
  it('counts each file by the latest attempt of each test, a fail-then-pass as flaky', async () => {
    const res = await t.server.app.request(`/runs/${runId}`, { headers: { Cookie: t.owner.cookie } });
    expect(res.status).toBe(200);
    const html = await res.text();
    // a.spec.ts: "fixed" failed, then passed (flaky); "steady" passed once.
    expect(fileRow(html, 'a.spec.ts')).toEqual([2, 1, 0, 1, 0]);
    // b.spec.ts: "broken" failed twice, "regressed" passed then failed, "skipped" once.
    expect(fileRow(html, 'b.spec.ts')).toEqual([3, 0, 2, 0, 1]);
  });
});
