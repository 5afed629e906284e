// Writes a large project history straight into the database (rows matching
// packages/server/src/db/migrations/): `runs` finished runs of `perRun` tests each, the same
// `perRun` test cases in every run, with flakiness stats on test_cases consistent with the stored
// results (docs/decisions.md §7: last 50 non-skipped results). SQLite through better-sqlite3 prepared
// statements; PostgreSQL through `pg` with one `INSERT … SELECT * FROM unnest(…)` per run (the
// schema is the same there: booleans as integers, JSON and timestamps as text).
import Database from 'better-sqlite3';
import pg from 'pg';
import { join } from 'node:path';
import { seededRandom, steps, testIdentity } from './bodies.mjs';
import { uuidv7 } from './ids.mjs';
import { TEST_COLUMNS, testRow } from './rows.mjs';
import { failureMessage, loadFingerprint, REGRESSION_CASE, REGRESSION_MESSAGE, stderrOf, stdoutLine } from './errors.mjs';

const DAY = 86_400_000;
const RUN_COLUMNS = ['id', 'project_id', 'status', 'branch', 'commit_sha', 'commit_message', 'commit_author', 'ci_provider', 'ci_build_id', 'ci_build_url', 'framework_version', 'workers', 'browser', 'os', 'hostname', 'run_title', 'tags', 'grep_patterns', 'total_tests', 'passed_tests', 'failed_tests', 'skipped_tests', 'flaky_tests', 'duration', 'finished_at', 'created_at', 'updated_at'];
// What ingestion stores beyond the body's columns: the error's fingerprint (errorGroups/).
const DATASET_TEST_COLUMNS = [...TEST_COLUMNS, 'error_fingerprint'];
const CASE_COLUMNS = ['id', 'project_id', 'file_path', 'full_title', 'title', 'latest_test_id', 'flakiness_score', 'total_runs', 'flaky_runs', 'last_flaky_at', 'stats_dirty', 'created_at', 'updated_at'];

/** The history as rows: yields { run, tests } per run, then sets `caseRows` (the final test_cases). */
function* history(projectId, { runs, perRun }, out, fingerprintOf) {
  const rand = seededRandom(7);
  const start = Date.now() - 25 * DAY; // inside the default 30-day retention window
  const spacing = Math.floor((25 * DAY) / runs);
  const cases = Array.from({ length: perRun }, (_, c) => ({
    id: uuidv7(start - DAY + c),
    identity: testIdentity(c),
    flakyRate: c % 10 === 0 ? 0.05 + (c % 7) * 0.04 : 0,
    alwaysSkipped: c % 50 === 7,
    window: [], // last 50 non-skipped results: 1 = flaky
    lastFlakyAt: null,
    latestTestId: null,
  }));
  const stepsJson = [300, 900, 2400].map((d) => JSON.stringify(steps(d)));
  // From this run on one test fails on every run with an error never seen before (errors.mjs).
  const regressionRun = Math.floor(runs / 2);

  for (let r = 0; r < runs; r++) {
    const runAt = start + r * spacing;
    const runId = uuidv7(runAt);
    out.runIds.push(runId);
    const branch = r % 5 === 0 ? `feature/change-${r}` : 'main';
    const commitSha = (r * 2654435761 >>> 0).toString(16).padStart(8, '0').repeat(5);
    const counts = { passed: 0, failed: 0, skipped: 0, flaky: 0 };
    let duration = 0;
    const tests = [];
    for (let k = 0; k < perRun; k++) {
      const c = cases[k];
      const x = rand();
      const regressed = k === REGRESSION_CASE && r >= regressionRun;
      const status = c.alwaysSkipped ? 'skipped' : regressed || x > 0.995 ? 'failed' : x < c.flakyRate ? 'flaky' : 'passed';
      counts[status]++;
      const createdMs = runAt + 1000 + k * 50;
      const id = uuidv7(createdMs);
      const createdAt = new Date(createdMs).toISOString();
      const d = Math.round(200 + rand() * 2800);
      duration += d;
      const body = {
        runId, projectId, ...c.identity, status, duration: d, retries: status === 'flaky' ? 1 : 0, attempt: status === 'flaky' ? 1 : 0,
        isFlaky: status === 'flaky', tags: k % 3 === 0 ? ['@smoke'] : [], annotations: [],
        error: status === 'failed' ? { message: regressed ? REGRESSION_MESSAGE(r) : failureMessage(k, r), stack: `Error: expect failed\n    at ${c.identity.filePath}:${c.identity.lineNumber}:5` } : null,
        stdout: k % 10 === 0 && status !== 'skipped' ? stdoutLine(k, r) : null,
        stderr: status === 'failed' ? stderrOf(regressed ? '' : failureMessage(k, r)) : null,
      };
      const row = testRow(body, { id, caseId: c.id, branch, commitSha, createdAt });
      row.steps = status === 'skipped' ? null : stepsJson[k % 3];
      row.error_fingerprint = body.error ? fingerprintOf(body.error.message, c.identity.filePath) : null;
      if (row.error_fingerprint) {
        out.fingerprints.add(row.error_fingerprint);
        if (regressed && r === regressionRun) out.regression = { runId, commitSha, fingerprint: row.error_fingerprint };
      }
      tests.push(row);
      if (rand() < 0.001) out.sampleTestIds.push(id);
      c.latestTestId = id;
      if (status !== 'skipped') {
        c.window.push(status === 'flaky' ? 1 : 0);
        if (c.window.length > 50) c.window.shift();
      }
      if (status === 'flaky') c.lastFlakyAt = createdAt;
    }
    const finishedAt = new Date(runAt + 1000 + perRun * 50).toISOString();
    const run = {
      id: runId, project_id: projectId, status: counts.failed ? 'failed' : 'passed', branch, commit_sha: commitSha,
      commit_message: `Change ${r}: tidy the checkout flow`, commit_author: 'Dev Eloper', ci_provider: 'github-actions',
      ci_build_id: String(100000 + r), ci_build_url: `https://ci.example.com/builds/${100000 + r}`, framework_version: '1.65.1',
      workers: 4, browser: 'chromium', os: 'linux', hostname: 'runner-1', run_title: `CI #${100000 + r}`, tags: '["ci"]', grep_patterns: '[]',
      total_tests: perRun, passed_tests: counts.passed, failed_tests: counts.failed, skipped_tests: counts.skipped, flaky_tests: counts.flaky,
      duration, finished_at: finishedAt, created_at: new Date(runAt).toISOString(), updated_at: finishedAt,
    };
    yield { run, tests };
  }
  const now = new Date().toISOString();
  out.caseRows = cases.map((c) => {
    const flaky = c.window.reduce((a, b) => a + b, 0);
    const total = c.window.length;
    return {
      id: c.id, project_id: projectId, file_path: c.identity.filePath, full_title: c.identity.fullTitle, title: c.identity.title,
      latest_test_id: c.latestTestId, flakiness_score: total ? Math.round((flaky / total) * 10_000) / 10_000 : 0,
      total_runs: total, flaky_runs: flaky, last_flaky_at: c.lastFlakyAt, stats_dirty: 0, created_at: new Date(start - DAY).toISOString(), updated_at: now,
    };
  });
}

function writeSqlite(dataDir, rows, out, progress) {
  const db = new Database(join(dataDir, 'testreport.db'));
  db.pragma('synchronous = OFF');
  db.pragma('foreign_keys = OFF');
  db.pragma('cache_size = -262144');
  const insert = (table, cols) => db.prepare(`INSERT INTO ${table} (${cols.join(', ')}) VALUES (${cols.map((c) => '@' + c).join(', ')})`);
  const insertRun = insert('runs', RUN_COLUMNS);
  const insertTest = insert('tests', DATASET_TEST_COLUMNS);
  const insertCase = insert('test_cases', CASE_COLUMNS);
  // The server's indexes are dropped while the rows go in and built again from their own SQL
  // afterwards (the same indexes, sorted once instead of updated 10,000,000 times at random places).
  const indexes = db.prepare(`SELECT name, sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL AND tbl_name IN ('runs', 'tests', 'test_cases')`).all();
  for (const i of indexes) db.exec(`DROP INDEX "${i.name}"`);
  // The search index (FTS5, migration 018: titles per test case, error and output per result that
  // has any) likewise: its triggers are dropped and the index is built from the stored rows in one
  // pass at the end, as the migration builds it.
  const triggers = db.prepare(`SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND tbl_name IN ('tests', 'test_cases')`).all();
  for (const t of triggers) db.exec(`DROP TRIGGER "${t.name}"`);
  const hasSearch = db.prepare(`SELECT 1 FROM sqlite_master WHERE name = 'cases_search'`).get();
  // Big transactions: a commit per 20 runs (10,000–200,000 rows).
  const writeRuns = db.transaction((list) => {
    for (const { run, tests } of list) {
      for (const t of tests) insertTest.run(t);
      insertRun.run(run);
    }
  });
  let pending = [];
  let written = 0;
  for (const r of rows) {
    pending.push(r);
    if (pending.length === 20) {
      writeRuns(pending);
      written += pending.reduce((n, p) => n + p.tests.length, 0);
      pending = [];
      progress?.(written);
    }
  }
  writeRuns(pending);
  db.transaction(() => {
    for (const c of out.caseRows) insertCase.run(c);
  })();
  for (const i of indexes) db.exec(i.sql);
  progress?.(written, 'indexes');
  if (hasSearch) {
    db.exec(`INSERT INTO cases_search(cases_search) VALUES('rebuild')`);
    db.exec(`INSERT INTO tests_search(rowid, error_message, stdout, stderr) SELECT rowid, error_message, stdout, stderr FROM tests
      WHERE error_message IS NOT NULL OR stdout IS NOT NULL OR stderr IS NOT NULL`);
    progress?.(written, 'search index');
  }
  for (const t of triggers) db.exec(t.sql);
  db.pragma('wal_checkpoint(TRUNCATE)');
  db.exec('ANALYZE');
  db.close();
}

async function writePostgres(databaseUrl, rows, out, progress) {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    // Generated data, not acknowledged writes: no need to wait for each commit's WAL flush. Foreign
    // keys are not checked (as SQLite's foreign_keys=OFF above): test_cases are written last, with
    // their final stats. Both settings are this session's only; `replica` needs a superuser.
    await client.query('SET synchronous_commit = off');
    await client.query("SET session_replication_role = 'replica'");
    await client.query("SET maintenance_work_mem = '512MB'");
    const { rows: columns } = await client.query(`SELECT table_name, column_name, data_type FROM information_schema.columns WHERE table_schema = current_schema()`);
    const typeOf = (table, col) => columns.find((c) => c.table_name === table && c.column_name === col)?.data_type;
    const statement = (table, cols) => `INSERT INTO ${table} (${cols.join(', ')}) SELECT * FROM unnest(${cols.map((c, i) => `$${i + 1}::${typeOf(table, c)}[]`).join(', ')})`;
    const sql = { runs: statement('runs', RUN_COLUMNS), tests: statement('tests', DATASET_TEST_COLUMNS), test_cases: statement('test_cases', CASE_COLUMNS) };
    const insert = (table, cols, objs) => client.query({ name: `bench-${table}`, text: sql[table], values: cols.map((c) => objs.map((o) => o[c] ?? null)) });
    // The indexes of `tests` other than its primary key (the B-trees and the search's pg_trgm GIN
    // indexes) are dropped during the load and built again from their own definitions afterwards:
    // one sort per index instead of 10,000,000 scattered inserts, as on SQLite.
    const { rows: indexes } = await client.query(`SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = current_schema() AND tablename = 'tests'
      AND indexname NOT IN (SELECT conname FROM pg_constraint)`);
    for (const i of indexes) await client.query(`DROP INDEX "${i.indexname}"`);
    let pending = [];
    let written = 0;
    const flush = async () => {
      await client.query('BEGIN');
      const tests = pending.flatMap((p) => p.tests);
      for (let i = 0; i < tests.length; i += 5_000) await insert('tests', DATASET_TEST_COLUMNS, tests.slice(i, i + 5_000));
      await insert('runs', RUN_COLUMNS, pending.map((p) => p.run));
      await client.query('COMMIT');
      written += tests.length;
      pending = [];
      progress?.(written);
    };
    for (const r of rows) {
      pending.push(r);
      if (pending.length === 20) await flush();
    }
    if (pending.length) await flush();
    await insert('test_cases', CASE_COLUMNS, out.caseRows);
    for (const i of indexes) await client.query(i.indexdef);
    progress?.(written, 'indexes');
    // VACUUM as well: autovacuum does it soon after such a load, and until then every index-only
    // scan (the error groups' covering index) fetches each row from the table to check visibility.
    await client.query('VACUUM (ANALYZE)');
  } finally {
    await client.end();
  }
}

/**
 * db: from bench/lib/database.mjs. Returns run ids, sample result ids, the fingerprints stored, the
 * regression (its first run, commit and fingerprint), the count and the seconds taken.
 */
export async function generateDataset(dataDir, projectId, { runs, perRun }, db, log) {
  const out = { runIds: [], sampleTestIds: [], caseRows: [], fingerprints: new Set(), regression: null };
  const rows = history(projectId, { runs, perRun }, out, await loadFingerprint());
  const t0 = performance.now();
  // A line per 10% of a large history, so a 10,000,000-result run shows it is moving.
  const step = Math.max(1_000_000, Math.ceil((runs * perRun) / 10));
  let next = step;
  const seconds = () => ((performance.now() - t0) / 1000).toFixed(0);
  const progress = log && ((n, phase) => {
    if (phase) log(`${phase} built at ${seconds()} s`);
    else if (n >= next) {
      log(`${n.toLocaleString('en-US')} results written in ${seconds()} s`);
      next += step;
    }
  });
  if (db?.databaseUrl) await writePostgres(db.databaseUrl, rows, out, progress);
  else writeSqlite(dataDir, rows, out, progress);
  return { runIds: out.runIds, sampleTestIds: out.sampleTestIds, fingerprints: [...out.fingerprints], regression: out.regression, results: runs * perRun, seconds: (performance.now() - t0) / 1000 };
}
