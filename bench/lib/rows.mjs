// Maps a POST /tests body to rows of the schema in packages/server/src/db/migrations/001_initial.ts,
// for the raw-SQLite floor and for generating large datasets without the API.
import { uuidv7 } from './ids.mjs';

export const TEST_COLUMNS = [
  'id', 'run_id', 'project_id', 'case_id', 'title', 'full_title', 'file_path', 'line_number', 'status', 'duration',
  'retries', 'attempt', 'is_flaky', 'tags', 'annotations', 'error', 'error_message', 'steps', 'stdout', 'stderr',
  'branch', 'commit_sha', 'created_at',
];

export function prepareStatements(db) {
  return {
    upsertCase: db.prepare(`
      INSERT INTO test_cases (id, project_id, file_path, full_title, title, latest_test_id, stats_dirty, created_at, updated_at)
      VALUES (@id, @project_id, @file_path, @full_title, @title, @latest_test_id, 1, @created_at, @created_at)
      ON CONFLICT (project_id, file_path, full_title)
      DO UPDATE SET latest_test_id = excluded.latest_test_id, title = excluded.title, stats_dirty = 1, updated_at = excluded.updated_at
      RETURNING id`),
    insertTest: db.prepare(`INSERT INTO tests (${TEST_COLUMNS.join(', ')}) VALUES (${TEST_COLUMNS.map((c) => '@' + c).join(', ')})`),
  };
}

export function testRow(body, { id, caseId, branch = 'main', commitSha = null, createdAt }) {
  const stepsJson = body.steps?.length ? JSON.stringify(body.steps) : null;
  return {
    id,
    run_id: body.runId,
    project_id: body.projectId,
    case_id: caseId,
    title: body.title,
    full_title: body.fullTitle,
    file_path: body.filePath ?? null,
    line_number: body.lineNumber ?? null,
    status: body.status,
    duration: body.duration,
    retries: body.retries ?? 0,
    attempt: body.attempt ?? 0,
    is_flaky: body.isFlaky || body.status === 'flaky' ? 1 : 0,
    tags: JSON.stringify(body.tags ?? []),
    annotations: JSON.stringify(body.annotations ?? []),
    error: body.error ? JSON.stringify(body.error) : null,
    error_message: body.error?.message ?? null,
    steps: stepsJson,
    stdout: body.stdout ?? null,
    stderr: body.stderr ?? null,
    branch,
    commit_sha: commitSha,
    created_at: createdAt,
  };
}

/**
 * The rows for one stored test, built ahead of the clock: ids and JSON text are the caller's cost,
 * the floor times only what the database must do (upsert the case, insert the result).
 */
export function buildRows(body, { now = Date.now(), branch, commitSha } = {}) {
  const id = uuidv7(now);
  const createdAt = new Date(now).toISOString();
  return {
    caseParams: { id: uuidv7(now), project_id: body.projectId, file_path: body.filePath ?? '', full_title: body.fullTitle, title: body.title, latest_test_id: id, created_at: createdAt },
    row: testRow(body, { id, caseId: null, branch, commitSha, createdAt }),
  };
}

export function insertRows(stmts, { caseParams, row }) {
  row.case_id = stmts.upsertCase.get(caseParams).id;
  stmts.insertTest.run(row);
}
