import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { png, startTestServer, type TestServer } from '@testreport/server/testing';
import { startReceiver } from '../../packages/server/src/testing/receiver.js';
import { PermissionError, ValidationError, type TestReportClient } from '@testreport/client';
import { clientFor } from './realServer.js';

/** Screenshot baselines (docs/decisions.md §13) through the real server and the SDK, on SQLite or PostgreSQL (TESTREPORT_TEST_DB). */
let t: TestServer;
let sdk: TestReportClient;
let receiver: Awaited<ReturnType<typeof startReceiver>>;

beforeAll(async () => {
  receiver = await startReceiver();
  t = await startTestServer({ backgroundJobs: false });
  sdk = clientFor(t, t.apiKey);
});
afterAll(async () => {
  await t?.close();
  await receiver?.close();
});

/** A distinct valid PNG per label (a tEXt-free trailing byte after IEND is still a PNG to the server's sniffing). */
const image = (label: string) => Buffer.concat([png(), Buffer.from(label)]);

async function failedShot(runId: string, title: string) {
  const [made] = (await sdk.tests.createBatch([{ runId, projectId: t.projectId, title, fullTitle: `visual > ${title}`, filePath: 'tests/visual.spec.ts', status: 'failed', duration: 5, retries: 1 }])).data;
  return made!.id;
}
const up = (runId: string, testId: string, fileName: string, retry: number, snapshotPath?: string) =>
  sdk.artifacts.upload({ file: image(`${fileName}@${retry}`), fileName, type: 'screenshot', runId, projectId: t.projectId, testId, retry, ...(snapshotPath ? { snapshotPath } : {}) });

describe('screenshot baselines', () => {
  it('lists a test\'s snapshots (latest try per name), accepts and undoes them, and lists a run\'s accepted baselines', async () => {
    const run = await sdk.runs.create({ projectId: t.projectId, status: 'running', branch: 'main' });
    const testId = await failedShot(run.id, 'header');
    const header = 'tests/visual.spec.ts-snapshots/header-chromium-linux.png';
    const footer = 'tests/visual.spec.ts-snapshots/footer-chromium-linux.png';
    // Try 0 and try 1 both mismatched `header`; `footer` had no baseline (actual only); `plain.png` is no comparison.
    await up(run.id, testId, 'header-expected.png', 0, header);
    await up(run.id, testId, 'header-actual.png', 0, header);
    const expected = await up(run.id, testId, 'header-expected.png', 1, header);
    const actual = await up(run.id, testId, 'header-actual.png', 1, header);
    const diff = await up(run.id, testId, 'header-diff.png', 1, header);
    const footerActual = await up(run.id, testId, 'footer-actual.png', 0, footer);
    await up(run.id, testId, 'plain.png', 0);

    const listed = await sdk.tests.snapshots(testId);
    expect(listed).toEqual([
      { name: 'footer', snapshotPath: footer, actual: footerActual.id, retry: 0, acceptance: null },
      { name: 'header', snapshotPath: header, expected: expected.id, actual: actual.id, diff: diff.id, retry: 1, acceptance: null },
    ]);

    const hook = await sdk.webhooks.create({ projectId: t.projectId, url: receiver.url, events: ['baselines.accepted'], secret: 'shh' });
    const accepted = await sdk.tests.acceptSnapshots(testId, { names: ['header'] });
    expect(accepted.find((s) => s.name === 'header')!.acceptance).toEqual({ by: expect.any(String), at: expect.any(String) });
    expect(accepted.find((s) => s.name === 'footer')!.acceptance).toBeNull();
    // Accepting again changes nothing and announces nothing.
    await sdk.tests.acceptSnapshots(testId, { names: ['header'] });

    const baselines = await sdk.runs.baselines(run.id);
    expect(baselines.data).toEqual([{ testId, name: 'header', snapshotPath: header, actual: actual.id, url: expect.stringContaining(`/storage/${actual.id}?`), sha256: expect.any(String), acceptance: accepted[1]!.acceptance }]);
    const bytes = Buffer.from(await (await fetch(baselines.data[0]!.url)).arrayBuffer());
    expect(bytes.equals(image('header-actual.png@1'))).toBe(true);

    // Undo takes it back; accepting without names takes all.
    expect((await sdk.tests.unacceptSnapshots(testId, { names: ['header'] })).every((s) => s.acceptance === null)).toBe(true);
    expect((await sdk.runs.baselines(run.id)).data).toEqual([]);
    const all = await sdk.tests.acceptSnapshots(testId);
    expect(all.map((s) => s.acceptance !== null)).toEqual([true, true]);
    expect((await sdk.runs.baselines(run.id)).data.map((b) => b.snapshotPath)).toEqual([footer, header]);

    // Two acceptances that marked something: two signed deliveries.
    await t.server.services.webhooks.deliverDueOnce();
    await receiver.waitFor(2);
    const got = receiver.received.filter((r) => r.headers['x-testreport-event'] === 'baselines.accepted');
    expect(got).toHaveLength(2);
    for (const r of got) expect(r.headers['x-testreport-signature']).toBe(createHmac('sha256', 'shh').update(r.body).digest('hex'));
    const first = JSON.parse(got.find((r) => JSON.parse(r.body).data.baselines.snapshots.length === 1)!.body);
    expect(first.data.baselines).toMatchObject({ runId: run.id, testId, projectId: t.projectId, fullTitle: 'visual > header', url: expect.stringContaining(`/runs/${run.id}/visual`), snapshots: [{ name: 'header', snapshotPath: header, actual: actual.id }] });
    await sdk.webhooks.delete(hook.id);
  });

  it('refuses unknown names (400 naming the field) and a viewer (403)', async () => {
    const run = await sdk.runs.create({ projectId: t.projectId, status: 'running' });
    const testId = await failedShot(run.id, 'unknown');
    await up(run.id, testId, 'box-actual.png', 0, 'box.png');
    const err = await sdk.tests.acceptSnapshots(testId, { names: ['nope'] }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ValidationError);
    expect((err as ValidationError).details).toMatchObject({ field: 'names' });

    const viewer = await t.createUser({ teamId: t.teamId, role: 'viewer' });
    const asViewer = clientFor(t, viewer);
    expect(await asViewer.tests.snapshots(testId)).toHaveLength(1);
    await expect(asViewer.tests.acceptSnapshots(testId)).rejects.toBeInstanceOf(PermissionError);
    await expect(asViewer.tests.unacceptSnapshots(testId)).rejects.toBeInstanceOf(PermissionError);
    const member = await t.createUser({ teamId: t.teamId, role: 'member' });
    const [s] = await clientFor(t, member).tests.acceptSnapshots(testId);
    // Who accepted is the user's name (the harness names users after their address).
    expect(s!.acceptance!.by).toBe(member.email.split('@')[0]);
  });

  it('refuses absolute paths and paths that leave the project root, naming snapshotPath', async () => {
    const run = await sdk.runs.create({ projectId: t.projectId, status: 'running' });
    const testId = await failedShot(run.id, 'crafted');
    for (const bad of ['/etc/passwd.png', '../outside.png', 'a/../../b.png', 'C:/x.png', 'a\\b.png', 'a//b.png']) {
      const err = await up(run.id, testId, 'x-actual.png', 0, bad).catch((e: unknown) => e);
      expect(err, bad).toBeInstanceOf(ValidationError);
      expect((err as ValidationError).details, bad).toMatchObject({ field: 'snapshotPath' });
    }
    expect(await sdk.tests.snapshots(testId)).toEqual([]);
  });
});
