import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dialectOf } from '../db/database.js';
import * as m014 from '../db/migrations/014_failure_intelligence.js';
import { startTestServer, type TestServer } from '../testing/harness.js';
import { createRun, postTests, testBody } from '../testing/results.js';
import { fingerprintOf } from './fingerprint.js';

/* Migration 014 on a database that already holds results: it fingerprints every stored error. */
let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(() => t?.close());

describe('migration 014', () => {
  it('backfills the fingerprint of every stored error, and none for results without one', async () => {
    const run = await createRun(t);
    const tests = Array.from({ length: 1_205 }, (_, i) =>
      testBody(run.id, t.projectId, { fullTitle: `t ${i}`, filePath: `f${i % 3}.spec.ts`, ...(i % 2 ? { status: 'failed', error: { message: `Error: boom ${i}` } } : {}) }),
    );
    for (let i = 0; i < tests.length; i += 500) await postTests(t, tests.slice(i, i + 500));
    const db = t.server.services.deps.db;
    // Back to before 014 (no column, no index), then up again: the state of an upgraded server.
    await m014.down(db);
    await m014.up(db, dialectOf(db).columnTypes);
    const rows = await db.selectFrom('tests').select(['error_message', 'file_path', 'error_fingerprint']).execute();
    expect(rows).toHaveLength(1_205);
    for (const r of rows) expect(r.error_fingerprint).toBe(fingerprintOf(r.error_message, r.file_path));
    expect(rows.filter((r) => r.error_fingerprint !== null)).toHaveLength(602);
    const groups = await t.api('GET', `/errors?projectId=${t.projectId}`, { auth: t.apiKey });
    expect(groups.body.total).toBe(3);
    expect(groups.body.data.map((g: { occurrences: number }) => g.occurrences).sort()).toEqual([200, 201, 201]);
  });
});
