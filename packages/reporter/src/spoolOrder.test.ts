import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestReportClient } from '@testreport/client';
import { startTestServer, type TestServer } from '@testreport/server/testing';
import { idempotencyKey } from './delivery/records.js';
import { replaySpool } from './spool.js';

// A batch the server stored but whose answer never came back is replayed from the spool with the
// same Idempotency-Key, and the server compares the body's bytes. Reporters now send a result's
// run ids first (delivery/engine.ts); a spool written before that must replay in its own order.

let s: TestServer;
let dir: string;
beforeAll(async () => {
  s = await startTestServer();
  dir = mkdtempSync(join(tmpdir(), 'spool-order-'));
});
afterAll(async () => {
  await s?.close();
  rmSync(dir, { recursive: true, force: true });
});

const body = (i: number) => ({ title: `case ${i}`, fullTitle: `area > case ${i}`, filePath: 'a.spec.ts', status: 'passed', duration: 5, steps: [{ title: 'click', category: 'action', duration: 1 }] });

describe('replaying a spool whose batch the server already stored', () => {
  for (const variant of [{ name: 'written before the run ids went first', flag: {} }, { name: 'written with the run ids first', flag: { runIdsFirst: true } }]) {
    it(`${variant.name}: sends the batch byte for byte as first sent, so it is replayed, not refused`, async () => {
      const client = new TestReportClient({ apiKey: s.apiKey, url: s.url });
      const runCid = `run-${Math.random()}`;
      const batchCid = `batch-${Math.random()}`;
      const run = await client.runs.create({ projectId: s.projectId, status: 'running' }, { idempotencyKey: idempotencyKey('run', runCid) });
      const ids = { runId: run.id, projectId: s.projectId };
      const tests = [0, 1].map((i) => ('runIdsFirst' in variant.flag ? { ...ids, ...body(i), ...ids } : { ...body(i), ...ids }));
      // What the reporter that wrote the spool sent; its answer was lost.
      await client.tests.createBatch(tests as never, { idempotencyKey: idempotencyKey('batch', batchCid) });

      const file = join(dir, `${runCid}.jsonl`);
      const records = [
        { t: 'header', v: 1, cid: runCid, createdAt: new Date().toISOString(), projectId: s.projectId, reporter: 'test', ...variant.flag },
        { t: 'run', cid: runCid, body: {} },
        { t: 'ack', cid: runCid, id: run.id },
        { t: 'batch', cid: batchCid, tests: [0, 1].map((i) => ({ cid: `${batchCid}-${i}`, body: body(i) })) },
        { t: 'finish', cid: `finish-${runCid}`, body: { status: 'passed' } },
      ];
      writeFileSync(file, records.map((r) => JSON.stringify(r)).join('\n') + '\n');

      const result = await replaySpool(file, client);
      expect(result.sent.tests).toBe(2);
      const stored = await client.tests.list({ projectId: s.projectId, runId: run.id });
      expect(stored.data.map((t) => t.fullTitle).sort()).toEqual(['area > case 0', 'area > case 1']);
    });
  }
});
