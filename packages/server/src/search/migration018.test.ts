import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as m018 from '../db/migrations/018_search_by_case.js';
import { startTestServer, type TestServer } from '../testing/harness.js';
import { createRun, postTests, testBody } from '../testing/results.js';

/*
 * Migration 018 on a database that already holds results (indexed by 015's form): the new index
 * covers them, and it follows every later insert, update and delete (SQLite's triggers; PostgreSQL's
 * indexes are the table's) — of results and of test cases.
 */
let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(() => t?.close());

const found = async (q: string) => (await t.api('GET', `/search?projectId=${t.projectId}&q=${encodeURIComponent(q)}`, { auth: t.apiKey })).body.total;

describe('migration 018', () => {
  it('indexes the results stored before it and keeps up with writes after it', async () => {
    const run = await createRun(t);
    await postTests(t, [
      testBody(run.id, t.projectId, { fullTitle: 'old > one', status: 'failed', error: { message: 'Error: ETIMEDOUT before the index' } }),
      testBody(run.id, t.projectId, { fullTitle: 'old > two', stderr: 'ETIMEDOUT in stderr' }),
    ]);
    const db = t.server.services.deps.db;
    await m018.down(db);
    await m018.up(db);
    expect(await found('etimedout')).toBe(2);
    expect(await found('old > ')).toBe(2);

    await postTests(t, [testBody(run.id, t.projectId, { fullTitle: 'new > three', stdout: 'ETIMEDOUT after the index' })]);
    expect(await found('ETIMEDOUT')).toBe(3);
    await db.updateTable('tests').set({ stderr: 'all good now' }).where('full_title', '=', 'old > two').execute();
    expect(await found('ETIMEDOUT')).toBe(2);
    expect(await found('all good')).toBe(1);
    await db.deleteFrom('tests').where('full_title', '=', 'old > one').execute();
    expect(await found('ETIMEDOUT')).toBe(1);
    expect(await found('new > three')).toBe(1);

    // A result that gains an error after it was stored (an update from nothing to text) is found,
    // and losing its text takes it out again; a test case's removal takes its title out.
    await db.updateTable('tests').set({ error_message: 'ECONNREFUSED late' }).where('full_title', '=', 'new > three').execute();
    expect(await found('econnrefused')).toBe(1);
    await db.updateTable('tests').set({ error_message: null, stdout: null }).where('full_title', '=', 'new > three').execute();
    expect(await found('econnrefused')).toBe(0);
    expect(await found('ETIMEDOUT')).toBe(0);
    await db.deleteFrom('tests').where('full_title', '=', 'new > three').execute();
    await db.deleteFrom('test_cases').where('full_title', '=', 'new > three').execute();
    expect(await found('new > three')).toBe(0);
    expect(await found('old > two')).toBe(1);
  });
});
