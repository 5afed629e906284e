import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Context } from '../lib/context.js';
import { useServerAndConfigDir } from '../testing/context.js';
import { upload } from './upload.js';

const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';

/** A Playwright JSON report as the json reporter writes it for `testInfo.attach(name, { body })`. */
function report(dir: string): string {
  const file = join(dir, 'report.json');
  const result = {
    retry: 0,
    status: 'failed',
    duration: 12,
    error: { message: 'boom' },
    attachments: [
      { name: 'checkout', contentType: 'image/png', body: PNG },
      { name: 'notes', contentType: 'text/plain', body: Buffer.from('hello').toString('base64') },
      { name: 'screenshot', contentType: 'image/png', path: 'test-results/gone.png' },
    ],
  };
  const spec = { title: 'pays', file: 'shop.spec.ts', line: 3, tests: [{ projectName: 'chromium', status: 'unexpected', results: [result] }] };
  writeFileSync(file, JSON.stringify({ config: { version: '1.50.0' }, suites: [{ title: 'shop.spec.ts', file: 'shop.spec.ts', specs: [spec] }], stats: { duration: 20 } }));
  return file;
}

describe('upload() in process', () => {
  const env = useServerAndConfigDir('upload-');

  it('uploads a base64 body attachment as a screenshot, keeps a text one inline in its try, lists the missing file, and links the run page', async () => {
    const ctx = new Context({ json: true, url: env.server.url, apiKey: env.server.apiKey });
    const result = await upload(ctx, { path: report(env.dir), flags: {} });
    if (!('runId' in result)) throw new Error(`unexpected result ${JSON.stringify(result)}`);
    expect(result.webUrl).toBe(`${env.server.url}/runs/${result.runId}`);
    expect(result.runUrl).toBe(`${env.server.url}/api/v1/runs/${result.runId}`);
    expect(result.artifacts.uploaded).toBe(1);
    expect(result.artifacts.notUploaded.map((a) => a.reason)).toEqual(['missing']);
    const artifacts = (await env.server.api('GET', `/artifacts?runId=${result.runId}`, { auth: env.server.apiKey })).body.data;
    expect(artifacts).toMatchObject([{ type: 'screenshot', fileName: 'checkout.png', mimeType: 'image/png', fileSize: 70, retry: 0 }]);
    expect(artifacts[0].testId).toBeTruthy();
    const test = (await env.server.api('GET', `/tests/${artifacts[0].testId}`, { auth: env.server.apiKey })).body;
    expect(test.attempts[0].attachments).toEqual([{ name: 'notes', contentType: 'text/plain', body: 'hello' }]);
  });
});
