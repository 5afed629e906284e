import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as m015 from '../db/migrations/015_search.js';
import { startTestServer, type TestServer } from '../testing/harness.js';
import { createRun, postTests, testBody } from '../testing/results.js';

/*
 * Migration 015 on a database that already holds results: the index covers them, and it follows
 * every later insert, update and delete (SQLite's triggers; PostgreSQL's indexes are the table's).
 */
let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(() => t?.close());

const found = async (q: string) => (await t.api('GET', `/search?projectId=${t.projectId}&q=${encodeURIComponent(q)}`, { auth: t.apiKey })).body.total;

describe('migration 015', () => {
  it('indexes the results stored before it and keeps up with writes after it', async () => {
    const run = await createRun(t);
    await postTests(t, [
      testBody(run.id, t.projectId, { fullTitle: 'old > one', status: 'failed', error: { message: 'Error: ETIMEDOUT before the index' } }),
      testBody(run.id, t.projectId, { fullTitle: 'old > two', stderr: 'ETIMEDOUT in stderr' }),
    ]);
    const db = t.server.services.deps.db;
    await m015.down(db);
    await m015.up(db);
    expect(await found('etimedout')).toBe(2);

    await postTests(t, [testBody(run.id, t.projectId, { fullTitle: 'new > three', stdout: 'ETIMEDOUT after the index' })]);
    expect(await found('ETIMEDOUT')).toBe(3);
    await db.updateTable('tests').set({ stderr: 'all good now' }).where('full_title', '=', 'old > two').execute();
    expect(await found('ETIMEDOUT')).toBe(2);
    expect(await found('all good')).toBe(1);
    await db.deleteFrom('tests').where('full_title', '=', 'old > one').execute();
    expect(await found('ETIMEDOUT')).toBe(1);
    expect(await found('new > three')).toBe(1);
  });
});
