import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '@testreport/server/testing';
import { Context } from '../lib/context.js';
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
  let s: TestServer;
  let dir: string;
  const envBefore = process.env.TESTREPORT_CONFIG_DIR;
  beforeAll(async () => {
    s = await startTestServer();
    dir = mkdtempSync(join(tmpdir(), 'testreport-upload-'));
    process.env.TESTREPORT_CONFIG_DIR = dir;
  });
  afterAll(async () => {
    await s?.close();
    rmSync(dir, { recursive: true, force: true });
    if (envBefore === undefined) delete process.env.TESTREPORT_CONFIG_DIR;
    else process.env.TESTREPORT_CONFIG_DIR = envBefore;
  });

  it('uploads a base64 body attachment as a screenshot, lists the missing file, and links the run page', async () => {
    const ctx = new Context({ json: true, url: s.url, apiKey: s.apiKey });
    const result = await upload(ctx, { path: report(dir), flags: {} });
    if (!('runId' in result)) throw new Error(`unexpected result ${JSON.stringify(result)}`);
    expect(result.webUrl).toBe(`${s.url}/runs/${result.runId}`);
    expect(result.runUrl).toBe(`${s.url}/api/v1/runs/${result.runId}`);
    expect(result.artifacts.uploaded).toBe(1);
    expect(result.artifacts.notUploaded.map((a) => a.reason).sort()).toEqual(['missing', 'unsupported']);
    const artifacts = (await s.api('GET', `/artifacts?runId=${result.runId}`, { auth: s.apiKey })).body.data;
    expect(artifacts).toMatchObject([{ type: 'screenshot', fileName: 'checkout.png', mimeType: 'image/png', fileSize: 70 }]);
    expect(artifacts[0].testId).toBeTruthy();
  });
});
