// What PostgreSQL's busy backends are doing: samples pg_stat_activity every 5 ms for N seconds and
// prints how often each (wait event, statement) was seen, most frequent first. Run it beside a
// bench on PostgreSQL, e.g. `node bench/pg-waits.mjs 30 & BENCH_DB=postgres node bench/cpu-batch.mjs 1 packages/server/dist`.
// "CPU:-" is an active backend not waiting; Client:ClientRead one waiting for the server to send.
import pg from 'pg';
import { PG_ADMIN_URL } from './lib/database.mjs';

const seconds = Number(process.argv[2] ?? 20);
const client = new pg.Client({ connectionString: PG_ADMIN_URL });
await client.connect();
const counts = new Map();
const end = Date.now() + seconds * 1000;
let samples = 0;
while (Date.now() < end) {
  const { rows } = await client.query(
    "select coalesce(wait_event_type, 'CPU') || ':' || coalesce(wait_event, '-') as w, left(query, 24) as q from pg_stat_activity where state = 'active' and pid <> pg_backend_pid()",
  );
  for (const r of rows) {
    const k = `${r.w}  ${r.q.replace(/\s+/g, ' ')}`;
    counts.set(k, (counts.get(k) ?? 0) + 1);
  }
  samples++;
  await new Promise((r) => setTimeout(r, 5));
}
await client.end();
console.log(`${samples} samples in ${seconds} s`);
for (const [k, n] of [...counts].sort((a, b) => b[1] - a[1]).slice(0, 30)) console.log(String(n).padStart(6), k);
