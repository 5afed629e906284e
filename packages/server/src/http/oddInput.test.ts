/**
 * Odd but possible input that used to end in a 500 (issue 15.4): split emoji and lone surrogates in
 * titles, steps nested hundreds deep, a suite chain thousands deep, a multipart body cut short.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LIMITS } from '@testreport/contract';
import { startTestServer, type TestServer } from '../testing/harness.js';
import { countRows, createRun, testBody } from '../testing/results.js';
import { png } from '../testing/artifacts.js';

/** With the u flag a surrogate pair is one code point, so this only matches a lone half. */
const LONE_SURROGATE = /[\uD800-\uDFFF]/u;

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(async () => {
  await t?.close();
});

describe('titles', () => {
  it('cuts a long title on a code point boundary, so an emoji at the cut never becomes a lone surrogate', async () => {
    const run = await createRun(t);
    // 999 ASCII units then an emoji (2 units): a cut at a fixed UTF-16 length lands inside it.
    const cutAt = LIMITS.titleChars - '\n…[truncated by testreport]'.length - 1;
    const long = 'a'.repeat(cutAt) + '😀'.repeat(600);
    const res = await t.api('POST', '/tests/batch', { body: { tests: [testBody(run.id, t.projectId, { title: long, fullTitle: long }), testBody(run.id, t.projectId, { title: 'ok', fullTitle: 'ok' })] }, auth: t.apiKey });
    expect(res.status).toBe(201);
    expect(res.body.data).toHaveLength(2);
    const stored = await t.api('GET', `/tests/${res.body.data[0].id}`, { auth: t.apiKey });
    expect(stored.body.title.length).toBeLessThanOrEqual(LIMITS.titleChars);
    expect(stored.body.title).not.toMatch(LONE_SURROGATE);
    expect(stored.body.title.startsWith('a'.repeat(cutAt))).toBe(true);
    expect(stored.body.fullTitle).toBe(stored.body.title);
  });

  it('repairs a lone surrogate sent by a client (U+FFFD) instead of failing the whole batch', async () => {
    const run = await createRun(t);
    // JSON escapes make the lone surrogate survive JSON.stringify on the way out of the client.
    const tests = [
      { ...testBody(run.id, t.projectId), title: 'broken \\ud83d end', fullTitle: 'suite > broken \\ud83d end' },
      { ...testBody(run.id, t.projectId), title: 'fine', fullTitle: 'suite > fine' },
    ];
    const raw = JSON.stringify({ tests }).replaceAll('\\\\ud83d', '\\ud83d');
    const res = await t.api('POST', '/tests/batch', { body: raw, auth: t.apiKey });
    expect(res.status).toBe(201);
    expect(res.body.data.map((d: { title: string }) => d.title)).toEqual(['broken \uFFFD end', 'fine']);
    const history = await t.api('GET', `/tests/${res.body.data[0].id}/history`, { auth: t.apiKey });
    expect(history.status).toBe(200);
  });
});

describe('nesting', () => {
  const nested = (depth: number) => {
    let step: Record<string, unknown> = { title: `step ${depth}`, category: 'action' };
    for (let d = depth - 1; d >= 1; d--) step = { title: `step ${d}`, category: 'action', steps: [step] };
    return [step];
  };

  it(`accepts steps nested ${LIMITS.stepDepth} deep and refuses one level more with a 400 naming steps`, async () => {
    const run = await createRun(t);
    const ok = await t.api('POST', '/tests', { body: testBody(run.id, t.projectId, { steps: nested(LIMITS.stepDepth) }), auth: t.apiKey });
    expect(ok.status).toBe(201);
    const before = await countRows(t);
    const res = await t.api('POST', '/tests/batch', { body: { tests: [testBody(run.id, t.projectId), testBody(run.id, t.projectId, { steps: nested(LIMITS.stepDepth + 1) })] }, auth: t.apiKey });
    expect(res.status).toBe(400);
    expect(res.body.error.details).toMatchObject({ field: 'tests[1].steps', reason: 'out_of_range' });
    expect(res.body.error.message).toContain(String(LIMITS.stepDepth));
    expect(await countRows(t)).toEqual(before);
  });

  it('refuses steps nested 5,000 deep with a 400, not a stack overflow', async () => {
    const run = await createRun(t);
    // Built as text: JSON.stringify itself recurses and would overflow on the client side first.
    const steps = '{"title":"s","category":"action","steps":['.repeat(4_999) + '{"title":"s","category":"action"}' + ']}'.repeat(4_999);
    const raw = JSON.stringify(testBody(run.id, t.projectId, { steps: [] })).replace('"steps":[]', `"steps":[${steps}]`);
    const res = await t.api('POST', '/tests', { body: raw, auth: t.apiKey });
    expect(res.status).toBe(400);
    expect(res.body.error.details).toMatchObject({ field: 'steps', reason: 'out_of_range' });
  });

  it('lists a chain of 3,000 nested suites', async () => {
    const run = await createRun(t);
    let parentSuiteId: string | null = null;
    const db = t.server.services.deps.db;
    // Rows go in directly: 3,000 POSTs would only slow the test, the tree is built from rows alike.
    const rows = [];
    for (let i = 0; i < 3_000; i++) {
      const id = `01a20000-0000-7000-8000-${String(i).padStart(12, '0')}`;
      rows.push({ id, run_id: run.id, project_id: t.projectId, title: `s${i}`, file_path: '', parent_suite_id: parentSuiteId, created_at: '2026-01-01T00:00:00.000Z', updated_at: '2026-01-01T00:00:00.000Z' });
      parentSuiteId = id;
    }
    for (let i = 0; i < rows.length; i += 500) await db.insertInto('test_suites').values(rows.slice(i, i + 500)).execute();
    const res = await t.api('GET', `/test-suites?runId=${run.id}&projectId=${t.projectId}`, { auth: t.apiKey });
    expect(res.status).toBe(200);
    let depth = 0;
    for (let n = res.body.data[0]; n; n = n.children[0]) depth++;
    expect(depth).toBe(3_000);
  });
});

describe('multipart', () => {
  it('answers 400 to an upload whose body ends without its closing boundary, and stores nothing', async () => {
    const run = await createRun(t);
    const before = await countRows(t);
    const b = 'XbOuNdArY';
    const field = (name: string, value: string) => `--${b}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`;
    const body = Buffer.concat([
      Buffer.from(field('type', 'screenshot') + field('runId', run.id) + field('projectId', t.projectId)),
      Buffer.from(`--${b}\r\nContent-Disposition: form-data; name="file"; filename="a.png"\r\nContent-Type: image/png\r\n\r\n`),
      png(),
    ]);
    const res = await fetch(`${t.baseUrl}/upload`, { method: 'POST', headers: { 'X-API-Key': t.apiKey, 'Content-Type': `multipart/form-data; boundary=${b}` }, body });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: unknown }).error).toMatchObject({ code: 'VALIDATION_ERROR', details: { field: 'body' } });
    expect(await countRows(t)).toEqual(before);
  });
});
