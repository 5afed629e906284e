import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { png, startTestServer, type TestServer } from '@testreport/server/testing';
import { TestReportClient } from '@testreport/client';
import { keyContext, tempDir, testContext } from '../testing/context.js';
import { listBaselines, pullBaselines, targetOf } from './baselines.js';

let srv: TestServer;
let sdk: TestReportClient;
let runId: string;
const image = (label: string) => Buffer.concat([png(), Buffer.from(label)]);
const HEADER = 'tests/visual.spec.ts-snapshots/header-chromium-linux.png';
const FOOTER = 'tests/visual.spec.ts-snapshots/nested/footer.png';

beforeAll(async () => {
  srv = await startTestServer();
  sdk = new TestReportClient({ url: srv.url, apiKey: srv.apiKey, allowInsecureHttp: true });
  runId = (await sdk.runs.create({ projectId: srv.projectId, status: 'running', branch: 'main' })).id;
  const [t] = (await sdk.tests.createBatch([{ runId, projectId: srv.projectId, title: 'shots', fullTitle: 'visual > shots', status: 'failed', duration: 1 }])).data;
  const up = (fileName: string, snapshotPath: string) =>
    sdk.artifacts.upload({ file: image(fileName), fileName, type: 'screenshot', runId, projectId: srv.projectId, testId: t!.id, retry: 0, snapshotPath });
  await up('header-expected.png', HEADER);
  await up('header-actual.png', HEADER);
  await up('footer-actual.png', FOOTER);
  await up('other-actual.png', 'tests/other.png');
  await sdk.tests.acceptSnapshots(t!.id, { names: ['header', 'footer'] });
});
afterAll(() => srv?.close());

describe('reporter baselines', () => {
  it('list shows the accepted snapshots of a run', async () => {
    const r = await listBaselines(keyContext(srv), { runId });
    expect(r.data.map((b) => b.snapshotPath)).toEqual([HEADER, FOOTER]);
  });

  it('pull writes each accepted actual byte for byte at its path, creating folders; --check then finds nothing to change', async () => {
    const cwd = tempDir('pull-');
    mkdirSync(join(cwd, 'tests/visual.spec.ts-snapshots'), { recursive: true });
    writeFileSync(join(cwd, HEADER), 'old baseline');
    const ctx = testContext({ url: srv.url, apiKey: srv.apiKey }, { cwd });
    const r = await pullBaselines(ctx, { runId });
    expect(r.files.map((f) => [f.snapshotPath, f.status])).toEqual([[HEADER, 'written'], [FOOTER, 'written']]);
    expect(readFileSync(join(cwd, HEADER)).equals(image('header-actual.png'))).toBe(true);
    expect(readFileSync(join(cwd, FOOTER)).equals(image('footer-actual.png'))).toBe(true);
    expect(existsSync(join(cwd, 'tests/other.png'))).toBe(false);

    expect((await pullBaselines(ctx, { runId, check: true })).changed).toBe(0);
    writeFileSync(join(cwd, FOOTER), 'edited');
    const check = await pullBaselines(ctx, { runId, check: true });
    expect(check.files.map((f) => f.status)).toEqual(['unchanged', 'would change']);
    expect(readFileSync(join(cwd, FOOTER), 'utf8')).toBe('edited');
  });

  it('refuses a crafted path that leaves the folder or is absolute, before writing anything', async () => {
    const cwd = tempDir('crafted-');
    for (const bad of ['../escape.png', '/etc/x.png', 'a/../../b.png']) expect(() => targetOf(cwd, bad)).toThrow(/refusing snapshot path/);
    // A row written around the server's own check (an older server, a hand-edited database).
    await srv.server.services.deps.db.updateTable('artifacts').set({ snapshot_path: '../escape.png' }).where('file_name', '=', 'footer-actual.png').execute();
    await expect(pullBaselines(testContext({ url: srv.url, apiKey: srv.apiKey }, { cwd }), { runId })).rejects.toThrow(/refusing snapshot path "\.\.\/escape\.png"/);
    expect(existsSync(join(cwd, HEADER))).toBe(false);
    expect(existsSync(join(cwd, '../escape.png'))).toBe(false);
  });
});
