import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Context } from '../lib/context.js';
import { useServerAndConfigDir } from '../testing/context.js';
import { upload } from '../commands/upload.js';

/**
 * `files` file suites, each with one describe block holding one test, except the first file whose
 * test has no describe: 2 × files − 1 suites, so a describe and its file fall into different requests.
 */
function reportOf(dir: string, files: number): string {
  const file = join(dir, `report-${files}.json`);
  const spec = (f: number) => ({ title: 'works', file: `f${f}.spec.ts`, line: 3, tests: [{ projectName: 'chromium', status: 'expected', results: [{ retry: 0, status: 'passed', duration: 1 }] }] });
  const suites = Array.from({ length: files }, (_, f) => ({
    title: `f${f}.spec.ts`,
    file: `f${f}.spec.ts`,
    specs: f === 0 ? [spec(0)] : [],
    suites: f === 0 ? [] : [{ title: `area ${f}`, file: `f${f}.spec.ts`, specs: [spec(f)] }],
  }));
  writeFileSync(file, JSON.stringify({ config: { version: '1.50.0' }, suites, stats: { duration: 20 } }));
  return file;
}

describe('upload sends suites in batches', () => {
  const env = useServerAndConfigDir('upload-suites-');

  it('keeps every describe under its file when the tree spans several requests of 500', async () => {
    // 1,299 suites: three requests; the describe of f250 is item 500, its file item 499 of the first.
    const ctx = new Context({ json: true, url: env.server.url, apiKey: env.server.apiKey });
    const result = await upload(ctx, { path: reportOf(env.dir, 650), flags: {} });
    if (!('runId' in result)) throw new Error(`unexpected result ${JSON.stringify(result)}`);
    expect(result.suites).toBe(1299);
    const tree = (await env.server.api('GET', `/test-suites?runId=${result.runId}&projectId=${result.projectId}`, { auth: env.server.apiKey })).body.data;
    expect(tree).toHaveLength(650);
    for (const root of tree) {
      const f = Number(root.title.match(/\d+/)[0]);
      expect(root.children.map((c: { title: string }) => c.title)).toEqual(f === 0 ? [] : [`area ${f}`]);
    }
    // Uploading again sends nothing new: the same keys answer the same suites.
    const again = await upload(ctx, { path: reportOf(env.dir, 650), flags: {} });
    if (!('runId' in again)) throw new Error('unexpected result');
    expect(again.runId).toBe(result.runId);
    const after = (await env.server.api('GET', `/test-suites?runId=${result.runId}&projectId=${result.projectId}`, { auth: env.server.apiKey })).body.data;
    expect(after).toHaveLength(650);
  });
});
