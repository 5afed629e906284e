// Preload for a server of a bench run: times every SQLite statement (better-sqlite3) by its SQL and
// writes the totals to $BENCH_SQL_TIME_DIR/sql-time-<pid>-<thread>.json every 2 s, for
// bench/sql-time.mjs to print. Wall time of the native call only, so a statement that SQLite plans
// badly stands out from the JavaScript around it (it found the insights upkeep reading a whole run's
// index for each batch: docs/benchmarks.md). SQLite only; for PostgreSQL use pg_stat_statements.
//   BENCH_SQL_TIME_DIR=/tmp/st BENCH_SERVER_NODE_ARGS="--require ./bench/lib/sql-time.cjs" npm run bench -- --only writes
//   node bench/sql-time.mjs /tmp/st
const { threadId } = require('node:worker_threads');
const { writeFileSync } = require('node:fs');
const { join } = require('node:path');
const { createRequire } = require('node:module');

const dir = process.env.BENCH_SQL_TIME_DIR ?? '/tmp';
const Database = createRequire(join(__dirname, '../../packages/server/package.json'))('better-sqlite3');
/** SQL → [microseconds, calls] */
const totals = new Map();
const prepare = Database.prototype.prepare;
Database.prototype.prepare = function timedPrepare(source) {
  const stmt = prepare.call(this, source);
  const key = source.replace(/\s+/g, ' ').trim();
  // Not `iterate`: its call returns before the rows are read, so its time would say nothing.
  for (const method of ['run', 'all', 'get']) {
    const call = stmt[method];
    stmt[method] = function timed(...args) {
      const t0 = process.hrtime.bigint();
      try {
        return call.apply(stmt, args);
      } finally {
        const t = totals.get(key) ?? [0, 0];
        t[0] += Number(process.hrtime.bigint() - t0) / 1e3;
        t[1] += 1;
        totals.set(key, t);
      }
    };
  }
  return stmt;
};
const file = join(dir, `sql-time-${process.pid}-${threadId}.json`);
setInterval(() => totals.size > 0 && writeFileSync(file, JSON.stringify([...totals])), 2000).unref();
