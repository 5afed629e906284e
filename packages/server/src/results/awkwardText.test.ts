import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../testing/harness.js';
import { countRows, createRun, postTests, testBody } from '../testing/results.js';
import { firstErrorLine } from '../runs/summary.js';

/*
 * Batch ingestion stores text exactly as sent, whatever is in it. On PostgreSQL the rows travel as
 * COPY's text format (tab-separated, newline-terminated, backslash escapes, `\N` for NULL), so text
 * holding those very characters — and lines that look like COPY's own markers — must come back
 * unchanged. The test cases go as one array per column (`unnest`), whose literals quote and escape
 * each element: quotes, braces, commas and a bare NULL must survive that too. The same test runs
 * on SQLite.
 */
let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(async () => {
  await t?.close();
});

const awkward = [
  'tab\there\tand\tthere',
  'line one\nline two\r\nline three\rend',
  'C:\\temp\\new folder\\table.txt',
  '\\N',
  '\\.',
  'before\n\\.\nafter',
  'ends with a backslash \\',
  'an escaped-looking \\t and \\n and \\\\ and \\x41 and \\101',
  'quotes " and \' and `, braces {}, commas, "{a,b}", NULL, null',
  'ünïcödé — 日本語のテスト 🎭🧪 עברית e\u0301 \u200b zero-width',
  '\t\n\\',
];
// Far longer than one COPY chunk (256 KiB), every kind of special character spread through it.
const long = Array.from({ length: 30_000 }, (_, i) => `row ${i}\tcol\\${i}\n`).join('');

describe('POST /tests/batch with awkward text', () => {
  it('stores tabs, newlines, backslashes, unicode, long text and nulls exactly as sent', async () => {
    const run = await createRun(t);
    const before = await countRows(t);
    const tests = awkward.map((text, i) => ({
      ...testBody(run.id, t.projectId),
      title: `awkward ${i} ${text}`,
      fullTitle: `odd > ${i} > ${text}`,
      filePath: `tests/odd\t${i}\\spec.ts`,
      lineNumber: i,
      status: 'failed',
      tags: [`@tag\t${i}`, text],
      annotations: [{ type: 'issue', description: text }],
      error: { message: `Error ${i}: ${text}`, stack: `at ${text}` },
      steps: [{ title: text, category: 'action', duration: 1, error: { message: text } }],
      stdout: text,
      stderr: `${text}\n${text}`,
      attempts: [{ retry: 0, status: 'failed', duration: 5, errors: [{ message: `Error ${i}: ${text}` }], stdout: text }],
    }));
    // Nulls: every optional column left out, and an explicit null error.
    tests.push({ ...testBody(run.id, t.projectId, { title: 'bare', fullTitle: 'odd > bare', filePath: undefined }), error: null } as never);
    tests.push({ ...testBody(run.id, t.projectId, { title: 'long', fullTitle: 'odd > long' }), stdout: long, stderr: long.slice(0, 1000) } as never);

    const created = await postTests(t, tests);
    expect(created).toHaveLength(tests.length);
    const after = await countRows(t);
    expect(after.tests - before.tests).toBe(tests.length);
    expect(after.test_cases - before.test_cases).toBe(tests.length);
    const cases = await t.server.services.deps.db.selectFrom('test_cases').select(['title', 'full_title', 'file_path']).where('project_id', '=', t.projectId).execute();
    for (const sent of tests as { title: string; fullTitle: string; filePath?: string }[]) {
      expect(cases).toContainEqual({ title: sent.title, full_title: sent.fullTitle, file_path: sent.filePath ?? '' });
    }

    for (let i = 0; i < awkward.length; i++) {
      const sent = tests[i] as (typeof tests)[number];
      const got = (await t.api('GET', `/tests/${created[i]!.id}`, { auth: t.apiKey })).body;
      expect(got).toMatchObject({
        title: sent.title, fullTitle: sent.fullTitle, filePath: sent.filePath, lineNumber: i, tags: sent.tags,
        annotations: sent.annotations, error: sent.error, stdout: sent.stdout, stderr: sent.stderr,
      });
      expect(got.attempts[0]).toMatchObject({ retry: 0, errors: [{ message: sent.error.message }], stdout: sent.stdout });
      const steps = (await t.api('GET', `/tests/${created[i]!.id}/steps`, { auth: t.apiKey })).body.data;
      expect(steps[0]).toMatchObject({ title: awkward[i], error: { message: awkward[i] } });
    }
    const bare = (await t.api('GET', `/tests/${created[awkward.length]!.id}`, { auth: t.apiKey })).body;
    expect(bare).toMatchObject({ filePath: null, lineNumber: null, error: null, stdout: null, stderr: null, tags: [], annotations: [], attempts: [] });
    const longOne = (await t.api('GET', `/tests/${created[awkward.length + 1]!.id}`, { auth: t.apiKey })).body;
    expect(longOne.stdout).toBe(long);
    expect(longOne.stderr).toBe(long.slice(0, 1000));

    // The search index and the error groups saw the same text.
    const search = async (q: string) => (await t.api('GET', `/search?projectId=${t.projectId}&q=${encodeURIComponent(q)}`, { auth: t.apiKey })).body.total;
    expect(await search('日本語のテスト')).toBeGreaterThanOrEqual(1);
    expect(await search('col\\29999')).toBe(1);
    expect(await search('table.txt')).toBeGreaterThanOrEqual(1);
    const groups = (await t.api('GET', `/errors?projectId=${t.projectId}&limit=100`, { auth: t.apiKey })).body;
    const messages = groups.data.map((g: { message: string }) => g.message);
    // A group shows the first line of its newest message.
    for (let i = 0; i < awkward.length; i++) expect(messages).toContain(firstErrorLine(`Error ${i}: ${awkward[i]}`));
    const odd = (await t.api('GET', `/errors?projectId=${t.projectId}&q=${encodeURIComponent('line two\r\nline three')}`, { auth: t.apiKey })).body;
    expect(odd.total).toBe(1);
  });
});
