// Prints what bench/lib/sql-time.cjs recorded: per SQLite statement its total wall time, calls and
// time per call, largest total first. `node bench/sql-time.mjs <dir> [top]` (default 25).
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const [dir = '/tmp', top = '25'] = process.argv.slice(2);
for (const name of readdirSync(dir).filter((f) => /^sql-time-\d+-\d+\.json$/.test(f))) {
  const rows = JSON.parse(readFileSync(join(dir, name), 'utf8')).sort((a, b) => b[1][0] - a[1][0]);
  const total = rows.reduce((sum, [, [us]]) => sum + us, 0);
  console.log(`${name}: ${(total / 1e3).toFixed(0)} ms in ${rows.length} statements`);
  for (const [sql, [us, calls]] of rows.slice(0, Number(top))) {
    console.log(`${(us / 1e3).toFixed(1).padStart(9)} ms ${`${(us / calls).toFixed(1)} µs × ${calls}`.padStart(22)}  ${sql.slice(0, 110)}`);
  }
}
