import Database from 'better-sqlite3';
import { join } from 'node:path';
import { testBody } from './lib/bodies.mjs';
import { buildRows, prepareStatements, insertRows, TEST_COLUMNS } from './lib/rows.mjs';
import { initDataDir, removeDir, tempDir } from './lib/server.mjs';
const mode = process.argv[2];
const dir = tempDir('exp'); const { projectId } = initDataDir(dir);
const db = new Database(join(dir, 'testreport.db'));
db.pragma('journal_mode = WAL'); db.pragma('synchronous = FULL'); db.pragma('foreign_keys = ON');
const now = new Date().toISOString();
db.prepare(`INSERT INTO runs (id, project_id, status, branch, tags, grep_patterns, created_at, updated_at) VALUES ('r1', ?, 'running', 'main', '[]', '[]', ?, ?)`).run(projectId, now, now);
const batches = [];
for (let r = 0; r < 10; r++) for (let s = 0; s < 10000; s += 500) batches.push(Array.from({ length: 500 }, (_, k) => buildRows(testBody({ runId: 'r1', projectId, i: s + k }), {})));
const stmts = prepareStatements(db);
const cache = new Map();
const prep = (sql) => { let s = cache.get(sql); if (!s) { s = db.prepare(sql); cache.set(sql, s); } return s; };
const t0 = performance.now();
for (const b of batches) {
  if (mode === 'row1') { if (b === batches[0]) db.exec('BEGIN'); for (const r of b) insertRows(stmts, r); if (b === batches[batches.length-1]) db.exec('COMMIT'); }
  else if (mode === 'row') db.transaction(() => { for (const r of b) insertRows(stmts, r); })();
  else db.transaction(() => {
    const caseCols = ['id','project_id','file_path','full_title','title','latest_test_id','stats_dirty','created_at','updated_at'];
    const vals = b.map(() => `(${caseCols.map(() => '?').join(',')})`).join(',');
    const sql = `insert into test_cases (${caseCols.join(',')}) values ${vals} on conflict (project_id, file_path, full_title) do update set title = excluded.title, latest_test_id = case when (test_cases.latest_test_id is null or excluded.latest_test_id > test_cases.latest_test_id) then excluded.latest_test_id else test_cases.latest_test_id end, stats_dirty = 1, updated_at = excluded.updated_at returning id, project_id, file_path, full_title`;
    const params = b.flatMap(({ caseParams: c }) => [c.id, c.project_id, c.file_path, c.full_title, c.title, c.latest_test_id, 1, c.created_at, c.created_at]);
    const st = mode === 'multi-cached' ? prep(sql) : db.prepare(sql);
    const rows = st.all(params);
    const ids = new Map(rows.map((r) => [r.full_title, r.id]));
    for (let i = 0; i < b.length; i += 200) {
      const part = b.slice(i, i + 200);
      const isql = `insert into tests (${TEST_COLUMNS.join(',')}) values ${part.map(() => `(${TEST_COLUMNS.map(() => '?').join(',')})`).join(',')}`;
      const p = part.flatMap(({ row }) => { row.case_id = ids.get(row.full_title); return TEST_COLUMNS.map((c) => row[c]); });
      (mode === 'multi-cached' ? prep(isql) : db.prepare(isql)).run(p);
    }
  })();
}
console.log(mode, Math.round(100000 / ((performance.now() - t0) / 1000)), 'tests/s');
db.close(); removeDir(dir);
