import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import type { CompiledQuery } from 'kysely';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openDatabase, type OpenedDatabase } from '../db/database.js';
import { createInsightsRepo } from '../runs/insightsRepo.js';
import { startTestServer, type TestServer } from '../testing/harness.js';
import { createRun, postTests, testBody } from '../testing/results.js';

/**
 * The run page's queries must read a run's results from indexes (migration 004): a covering scan
 * of the run for the newest result per case, and the suite in file and title order. Explained with
 * SQLite's EXPLAIN QUERY PLAN, so this suite runs on SQLite whatever TESTREPORT_TEST_DB says
 * (PostgreSQL gets the same indexes from the same migrations).
 */
let t: TestServer;
let raw: Database.Database;
let opened: OpenedDatabase;
let db: OpenedDatabase['db'];
let runId: string;
const seen: CompiledQuery[] = [];

beforeAll(async () => {
  const file = join(mkdtempSync(join(tmpdir(), 'testreport-web-plans-')), 'testreport.db');
  t = await startTestServer({ databaseUrl: file });
  runId = (await createRun(t)).id;
  await postTests(t, [testBody(runId, t.projectId), testBody(runId, t.projectId, { fullTitle: 'b', status: 'failed' })]);
  raw = new Database(file);
  // Opened as the server opens it, so repositories that ask the dialect (db/dialect.ts) work.
  opened = openDatabase(file, { log: (e) => {
    if (e.level === 'query') seen.push(e.query);
  } });
  db = opened.db;
});
afterAll(async () => {
  await opened?.close();
  await t?.close();
});

async function plans(run: () => Promise<unknown>) {
  seen.length = 0;
  await run();
  return seen
    .filter((q) => /^\s*select/i.test(q.sql))
    .map((q) => ({ sql: q.sql, plan: (raw.prepare(`explain query plan ${q.sql}`).all(...(q.parameters as unknown[])) as { detail: string }[]).map((r) => r.detail).join(' | ') }));
}

it.each([
  ['newest result per case', 'COVERING INDEX tests_run ', () => createInsightsRepo(db).newestPerCase(runId)],
  ['file counts', 'COVERING INDEX tests_run_suite ', () => createInsightsRepo(db).fileCounts(runId)],
  ['suite page', 'INDEX tests_run_suite ', () => createInsightsRepo(db).suitePage({ runId, limit: 200, offset: 0 })],
  ['suite page by status and search', 'INDEX tests_run_suite ', () => createInsightsRepo(db).suitePage({ runId, status: 'failed', search: 'b', limit: 200, offset: 0 })],
] as [string, string, () => Promise<unknown>][])('%s reads the run through an index, without sorting', async (_name, index, run) => {
  const found = await plans(run);
  expect(found.length).toBeGreaterThan(0);
  for (const p of found) {
    // A bare count may use whichever covering index of the run is smallest.
    // Whether the run was re-run in CI (issue 12) is one primary-key lookup of the run.
    if (/from "runs" where "id" = \?$/.test(p.sql)) expect(p.plan, p.sql).toMatch(/SEARCH runs USING INDEX sqlite_autoindex_runs_1 \(id=\?\)/);
    else if (/^select count\(\*\)/.test(p.sql)) expect(p.plan, p.sql).toMatch(/SEARCH tests USING COVERING INDEX tests_run/);
    else expect(p.plan, p.sql).toContain(index);
    expect(p.plan, p.sql).not.toMatch(/TEMP B-TREE/);
  }
});

// A run page of 50,000 tests reads only the run's failing and flaky results (issue 30): the run's
// rows of one status through tests_run_status, each checked for a later result of its case in the
// run through tests_case_window bounded by the run's last result, and a base run's cases looked up
// the same way. None of them may scan the run.
it.each([
  ['newest failing results', () => createInsightsRepo(db).newestWithStatus(runId, ['failed']), [/SEARCH tests USING INDEX tests_run_status \(run_id=\? AND status=\?\)/, /SEARCH later USING COVERING INDEX tests_case_window \(case_id=\? AND id>\? AND id<\?\)/]],
  ['newest result of some cases', () => createInsightsRepo(db).newestOfCases(runId, ['a', 'b']), [/SEARCH tests USING COVERING INDEX tests_case_window \(case_id=\? AND id>\? AND id<\?\)/]],
] as [string, () => Promise<unknown>, RegExp[]][])('%s: index searches, never a scan of the run', async (_name, run, expected) => {
  const found = await plans(run);
  const main = found.filter((p) => !/from "runs" where "id" = \?$/.test(p.sql) && !/limit \?$/.test(p.sql));
  expect(main.length).toBeGreaterThan(0);
  for (const p of main) for (const e of expected) expect(p.plan, p.sql).toMatch(e);
  for (const p of found) expect(p.plan, p.sql).not.toMatch(/SCAN tests/);
});
