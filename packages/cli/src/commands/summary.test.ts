import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderRunSummary, SUMMARY_MARKER, SUMMARY_MAX_CHARS } from '@testreport/client';
import { createRun, postTests, startTestServer, testBody, type TestServer } from '@testreport/server/testing';
import { UsageError } from '../lib/errors.js';
import { tempDir, testContext } from '../testing/context.js';
import { printSummary, summary } from './summary.js';
import { upload } from './upload.js';

/*
 * `reporter summary` and `reporter upload --summary` against a real server with known runs: a
 * finished run on main, then a feature run with a new failure, a fixed test, a flaky test and a
 * quarantined failure, and a run with 2,000 failures that must be cut to size.
 */
let s: TestServer;
let base: string;
let feature: string;
let big: string;
const ids: Record<string, string> = {};

const ERROR = 'Error: expect(received).toBe(expected)\n\nExpected: 3\nReceived: 2';
const body = (runId: string, name: string, status: string, over: Record<string, unknown> = {}) =>
  testBody(runId, s.projectId, { title: name, fullTitle: `cart > ${name}`, filePath: `tests/${name}.spec.ts`, status, ...(status === 'failed' ? { error: { message: ERROR } } : {}), ...over });

async function finish(runId: string, status = 'failed') {
  const res = await s.api('PATCH', `/runs/${runId}`, { auth: s.apiKey, body: { status } });
  expect(res.status).toBe(200);
}

beforeAll(async () => {
  s = await startTestServer();
  base = (await createRun(s, { branch: 'main' })).id;
  await postTests(s, [body(base, 'pays', 'passed'), body(base, 'ships', 'failed'), body(base, 'wraps', 'passed'), body(base, 'old', 'failed')]);
  await finish(base);
  feature = (await createRun(s, { branch: 'feature/cart', ciBuildId: 'gh-1001', commitSha: 'abcdef1234567890' })).id;
  const posted = await postTests(s, [body(feature, 'pays', 'failed'), body(feature, 'ships', 'passed'), body(feature, 'wraps', 'flaky'), body(feature, 'old', 'failed')]);
  ['pays', 'ships', 'wraps', 'old'].forEach((n, i) => (ids[n] = posted[i].id));
  await finish(feature);
  expect((await s.api('POST', '/flakiness', { auth: s.apiKey, body: { projectId: s.projectId, testId: ids.old, isQuarantined: true } })).status).toBe(200);

  big = (await createRun(s, { branch: 'main', ciBuildId: 'gh-2000' })).id;
  const many = Array.from({ length: 2000 }, (_, i) =>
    body(big, `checkout step ${String(i).padStart(4, '0')} ${'keeps the basket when the session expires '.repeat(2)}`, 'failed', {
      error: { message: `Error: timed out waiting for locator('#basket-${i}') ${'x'.repeat(200)}\n    at tests/x.spec.ts:1:1` },
    }),
  );
  for (let i = 0; i < many.length; i += 500) await postTests(s, many.slice(i, i + 500));
  await finish(big);
}, 120_000);

afterAll(async () => {
  await s?.close();
});

const ctxWith = (env: Record<string, string> = {}) => testContext({ url: s.url, apiKey: s.apiKey }, { env });

describe('reporter summary', () => {
  it('prints Markdown fit for one PR comment: marker, counts, new failures vs main, fixed, flaky, quarantined, links', async () => {
    const ctx = ctxWith();
    const r = await summary(ctx, { runId: feature });
    printSummary(ctx.out, r, { format: 'markdown' });
    const out = ctx.stdout();
    expect(out.split('\n')[0]).toBe(SUMMARY_MARKER);
    expect(out).toContain(`[Test run failed](${s.url}/runs/${feature}) on \`feature/cart\` at \`abcdef123456\``);
    expect(out).toContain('| 4 | 1 | 2 | 1 | 0 | 25% |');
    expect(out).toContain(`Compared with [the last finished run on \`main\`](${s.url}/runs/${base}): **1 new failure**, 1 fixed.`);
    const section = (heading: string) => out.split(`#### ${heading}`)[1]?.split('####')[0] ?? '';
    expect(section('New failures since the last run on main (1)')).toContain(`- [cart > pays](${s.url}/tests/${ids.pays}) — \`tests/pays.spec.ts\` _(new error)_<br>\`Error: expect(received).toBe(expected)\``);
    expect(section('Failed tests (2)')).toContain(`[cart > old](${s.url}/tests/${ids.old}) — \`tests/old.spec.ts\` _(quarantined)_`);
    expect(section('Fixed (1)')).toContain(`[cart > ships](${s.url}/tests/${ids.ships})`);
    expect(section('Flaky (passed after failing) (1)')).toContain(`[cart > wraps](${s.url}/tests/${ids.wraps})`);
    expect(section('Quarantined failures (1)')).toContain('cart > old');
    expect(out).toContain(`[Open the run in testreport](${s.url}/runs/${feature})`);
    expect(ctx.stderr()).toBe(''); // no $GITHUB_STEP_SUMMARY here: nothing written, nothing said
  });

  it('prints plain text and JSON, and compares with another branch on request', async () => {
    const ctx = ctxWith();
    const r = await summary(ctx, { runId: feature, base: 'release' });
    printSummary(ctx.out, r, { format: 'text' });
    const text = ctx.stdout();
    expect(text).toContain('Test run failed on feature/cart (abcdef123456)');
    expect(text).toContain('4 tests: 1 passed, 2 failed, 1 flaky, 0 skipped — 25% pass rate');
    expect(text).toContain('No finished run on release to compare with.');
    expect(text).toContain(`  ✗ cart > pays — tests/pays.spec.ts\n      Error: expect(received).toBe(expected) (new error)\n      ${s.url}/tests/${ids.pays}`);
    expect(text).not.toContain('New failures');
    const json = ctxWith();
    printSummary(json.out, await summary(json, { runId: feature }), { format: 'json' });
    const doc = JSON.parse(json.stdout());
    expect(doc).toMatchObject({ run: { id: feature }, base: { branch: 'main', run: { id: base } }, newFailures: { total: 1 }, fixed: { total: 1 }, flaky: { total: 1 }, quarantinedFailures: { total: 1 } });
  });

  it('finds the run by --build, or by the CI build of the environment; without either it says what to pass', async () => {
    expect((await summary(ctxWith(), { build: 'gh-1001' })).run.id).toBe(feature);
    expect((await summary(ctxWith({ GITHUB_ACTIONS: 'true', GITHUB_RUN_ID: 'gh-1001' }), {})).run.id).toBe(feature);
    const none = await summary(ctxWith(), {}).catch((e) => e);
    expect(none).toBeInstanceOf(UsageError);
    expect(none.message).toMatch(/--run <id> or --build <ciBuildId>/);
    await expect(summary(ctxWith(), { build: 'gh-404' })).rejects.toThrow('no run of CI build gh-404 in this project');
  });

  it("picks the run of this job's group in a build with several, else the build's newest run", async () => {
    // A build with two groups (two Playwright jobs); GitHub's job name is the default group.
    const gh = (job: string) => ({ GITHUB_ACTIONS: 'true', GITHUB_RUN_ID: 'gh-3000', GITHUB_JOB: job });
    const e2e = (await createRun(s, { branch: 'main', ciBuildId: 'gh-3000', group: 'e2e' })).id;
    const api = (await createRun(s, { branch: 'main', ciBuildId: 'gh-3000', group: 'api' })).id;
    expect((await summary(ctxWith(gh('e2e')), {})).run.id).toBe(e2e);
    expect((await summary(ctxWith({ ...gh('e2e'), TESTREPORT_GROUP: 'api' }), {})).run.id).toBe(api);
    expect((await summary(ctxWith(gh('report')), { group: 'e2e' })).run.id).toBe(e2e);
    // A summary job of its own after the matrix: no run of its group, so the build's newest run.
    expect((await summary(ctxWith(gh('report')), {})).run.id).toBe(api);
    expect((await summary(ctxWith(), { build: 'gh-3000', group: 'e2e' })).run.id).toBe(e2e);
  });

  it('appends the Markdown to $GITHUB_STEP_SUMMARY, once per call, unless told not to', async () => {
    const file = join(tempDir('step-'), 'summary.md');
    writeFileSync(file, '## an earlier step\n');
    const ctx = ctxWith({ GITHUB_STEP_SUMMARY: file });
    const r = await summary(ctx, { runId: feature });
    expect(ctx.stderr()).toContain(`summary appended to ${file}`);
    const written = readFileSync(file, 'utf8');
    expect(written).toBe(`## an earlier step\n${renderRunSummary(r, { format: 'markdown' })}\n\n`);
    await summary(ctx, { runId: feature });
    expect(readFileSync(file, 'utf8').split(SUMMARY_MARKER)).toHaveLength(3);
    await summary(ctx, { runId: feature, stepSummary: false });
    expect(readFileSync(file, 'utf8').split(SUMMARY_MARKER)).toHaveLength(3);
  });

  it('cuts a 2,000-failure run to size with a count of what was left out', async () => {
    const file = join(tempDir('step-'), 'summary.md');
    const ctx = ctxWith({ GITHUB_STEP_SUMMARY: file });
    const r = await summary(ctx, { runId: big, limit: 1000 });
    expect(r.failed.total).toBe(2000);
    expect(r.failed.items).toHaveLength(1000);
    const md = renderRunSummary(r, { format: 'markdown' });
    expect(md.length).toBeLessThanOrEqual(SUMMARY_MAX_CHARS);
    // The run is on main too: against the earlier main run every failure is new, so two long lists share the space.
    expect(md).toContain('#### New failures since the last run on main (2000)');
    const failedPart = md.split('#### Failed tests (2000)\n')[1].split('\n\n')[0];
    const listed = failedPart.split('\n').filter((l) => l.startsWith('- [')).length;
    expect(listed).toBeGreaterThan(50); // the space is used, not just a token few
    expect(listed).toBeLessThan(1000);
    expect(failedPart).toContain(`- _…and ${2000 - listed} more: see [the run](${s.url}/runs/${big})_`);
    expect(md.trimEnd().endsWith(`[Open the run in testreport](${s.url}/runs/${big})`)).toBe(true); // the footer survives the cut
    const written = readFileSync(file, 'utf8');
    expect(written).toBe(`${md}\n\n`);
    expect(Buffer.byteLength(written)).toBeLessThan(1024 * 1024); // GitHub's cap on a job summary
    const text = renderRunSummary(r, { format: 'text', maxChars: 20_000 });
    expect(text.length).toBeLessThanOrEqual(20_000);
    const failedText = text.split('Failed tests (2000):\n')[1].split('\n\n')[0];
    const shown = failedText.split('\n').filter((l) => l.startsWith('  ✗ ')).length;
    expect(shown).toBeGreaterThan(5);
    expect(failedText.endsWith(`  …and ${2000 - shown} more (see the run)`)).toBe(true);
  });
});

describe('reporter upload --summary', () => {
  function report(dir: string): string {
    const file = join(dir, 'report.json');
    const result = { retry: 0, status: 'failed', duration: 12, error: { message: 'Error: boom\n  at x' }, attachments: [] };
    const spec = { title: 'pays by card', file: 'shop.spec.ts', line: 3, tests: [{ projectName: 'chromium', status: 'unexpected', results: [result] }] };
    writeFileSync(file, JSON.stringify({ config: { version: '1.50.0' }, suites: [{ title: 'shop.spec.ts', file: 'shop.spec.ts', specs: [spec] }], stats: { duration: 20 } }));
    return file;
  }

  it('appends the uploaded run’s summary to $GITHUB_STEP_SUMMARY after sending', async () => {
    const dir = tempDir('upload-');
    const file = join(dir, 'step-summary.md');
    const ctx = ctxWith({ GITHUB_STEP_SUMMARY: file });
    const result = await upload(ctx, { path: report(dir), flags: { summary: true, branch: 'feature/upload' } });
    if (!('runId' in result)) throw new Error(`unexpected result ${JSON.stringify(result)}`);
    const written = readFileSync(file, 'utf8');
    expect(written.startsWith(SUMMARY_MARKER)).toBe(true);
    expect(written).toContain(`](${s.url}/runs/${result.runId})`);
    expect(written).toContain('#### Failed tests (1)');
    expect(written).toContain('pays by card');
    expect(written).toContain('`Error: boom`');
    expect(ctx.stderr()).toContain(`summary appended to ${file}`);
  });

  it('says so when $GITHUB_STEP_SUMMARY is not set, and the upload still succeeds', async () => {
    const ctx = ctxWith();
    const result = await upload(ctx, { path: report(tempDir('upload-')), flags: { summary: true } });
    expect('runId' in result).toBe(true);
    expect(ctx.stderr()).toContain('$GITHUB_STEP_SUMMARY is not set');
  });
});
