import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import type { CompiledQuery } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Db, type OpenedDatabase } from '../db/database.js';
import { createFlakinessRepo } from '../flakiness/repo.js';
import { createRetentionService } from '../retention/service.js';
import { startTestServer, type TestServer } from '../testing/harness.js';
import { createRun, postTests, testBody } from '../testing/results.js';
import { createTestRepo } from '../results/repo.js';
import { createRunRepo } from './repo.js';
import { createShardRepo } from './shardRepo.js';

/**
 * The queries behind GET /runs, GET /tests, history, GET /flakiness and the retention sweep must be
 * index lookups, so they stay fast with a million results in one project. The repositories run on a
 * second connection that records every statement; each SELECT is then explained with SQLite's
 * EXPLAIN QUERY PLAN, so this suite runs on SQLite whatever TESTREPORT_TEST_DB says (PostgreSQL
 * gets the same indexes from the same migrations).
 */
let t: TestServer;
let raw: Database.Database;
let opened: OpenedDatabase;
let db: Db;
const seen: CompiledQuery[] = [];
const dir = mkdtempSync(join(tmpdir(), 'testreport-plans-'));
const file = join(dir, 'testreport.db');

beforeAll(async () => {
  t = await startTestServer({ databaseUrl: file });
  const run = await createRun(t);
  await postTests(t, [testBody(run.id, t.projectId), testBody(run.id, t.projectId, { fullTitle: 'b', status: 'failed' })]);
  raw = new Database(file);
  opened = openDatabase(file, {
    log: (e) => {
      if (e.level === 'query') seen.push(e.query);
    },
  });
  db = opened.db;
});
afterAll(async () => {
  await opened?.close();
  raw?.close();
  await t?.close();
  rmSync(dir, { recursive: true, force: true });
});

function plansOf(run: () => Promise<unknown>) {
  return async () => {
    seen.length = 0;
    await run();
    const selects = seen.filter((q) => /^\s*select/i.test(q.sql));
    expect(selects.length).toBeGreaterThan(0);
    return selects.map((q) => ({
      sql: q.sql,
      plan: (raw.prepare(`explain query plan ${q.sql}`).all(...(q.parameters as unknown[])) as { detail: string }[]).map((r) => r.detail),
    }));
  };
}

/** A full pass over a big table is "SCAN <table>" with no index; everything else is a bounded lookup. */
const fullScans = (plans: { plan: string[] }[]) => plans.flatMap((p) => p.plan).filter((d) => /^SCAN (tests|runs|test_cases|test_suites)\b/.test(d) && !/USING (COVERING )?INDEX/.test(d));

describe('query plans', () => {
  it.each([
    ['GET /runs (list, count, derived counts)', ['runs_project', 'run_result_counts USING PRIMARY KEY'], () => createRunRepo(db).list({ projectId: t.projectId, limit: 50, offset: 0 }).then((r) => createRunRepo(db).statusCounts(r.rows.map((x) => x.id)))],
    ['GET /runs?status&branch', ['runs_project_branch'], () => createRunRepo(db).list({ projectId: t.projectId, status: 'passed', branch: 'main', limit: 50, offset: 0 })],
    ['GET /tests?runId', ['tests_run'], async () => createTestRepo(db).list({ projectId: t.projectId, runId: (await db.selectFrom('runs').select('id').executeTakeFirstOrThrow()).id, limit: 50, offset: 0 })],
    ['GET /tests?runId&status', ['tests_run_status'], () => createTestRepo(db).list({ projectId: t.projectId, runId: 'x', status: 'failed', limit: 50, offset: 0 })],
    ['GET /tests (project-wide, capped count)', ['tests_project'], () => createTestRepo(db).list({ projectId: t.projectId, limit: 50, offset: 0 })],
    ['GET /tests?status (project-wide)', ['tests_project_status'], () => createTestRepo(db).list({ projectId: t.projectId, status: 'flaky', limit: 50, offset: 0 })],
    ['GET /tests/:id/history', ['tests_case_window'], () => createTestRepo(db).history('case', 20)],
    ['GET /flakiness (dirty cases, window, list)', ['test_cases_dirty', 'tests_case_window', 'test_cases_score'], async () => {
      const f = createFlakinessRepo(db);
      await f.dirtyCasesOfProject(t.projectId);
      await f.dirtyCasesOfRun('run');
      await f.windows(['case-1', 'case-2'], '2000-01-01T00:00:00.000Z');
      await f.list({ projectId: t.projectId, limit: 50, offset: 0 });
      await f.list({ projectId: t.projectId, quarantined: true, minScore: 0.2, limit: 50, offset: 0 });
    }],
    ['shard timeout sweep', ['runs_status_build'], () => createShardRepo(db).runningBuilds()],
    ['retention sweep', ['runs_project_created'], () => createRetentionService({ ...t.server.services.deps, db }).sweepOnce()],
  ] as [string, string[], () => Promise<unknown>][])('%s uses indexes only', async (_name, indexes, run) => {
    const plans = await plansOf(run)();
    if (process.env.SHOW_PLANS) console.log(_name, JSON.stringify(plans.map((p) => [p.sql.slice(0, 160), p.plan]), null, 1));
    expect(fullScans(plans), JSON.stringify(plans, null, 1)).toEqual([]);
    // Every SELECT on tests must search by an index that bounds it by run, case or project.
    for (const p of plans) if (/from "tests"/.test(p.sql)) expect(p.plan.join(' '), p.sql).toMatch(/SEARCH tests USING (COVERING )?INDEX/);
    const used = plans.flatMap((p) => p.plan).join('\n');
    // An index by its name, or a WITHOUT ROWID table searched by its own key ("<table> USING PRIMARY KEY").
    for (const ix of indexes) expect(used, JSON.stringify(plans, null, 1)).toMatch(ix.includes(' ') ? ix : new RegExp(`INDEX ${ix} `));
  });
});
