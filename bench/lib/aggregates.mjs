// The insights aggregates (issue 27) of a generated history. Ingestion keeps them as results
// arrive; a history written straight into the tables (bench/lib/dataset.mjs) gets them the way
// migration 017's backfill builds them over an existing database: the server's own rebuild
// (insights/upkeep.ts countAllResults, set-based SQL), from the built server's `dist/maintenance.js`
// entry, so the bench runs the code a server runs and carries no copy of its SQL.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { loadavg } from 'node:os';
import { root } from './server.mjs';

const entry = join(root, 'packages/server/dist/maintenance.js');

/** Returns { seconds, days, durations } (rows written), or null when the build has no such entry. */
export async function fillInsightsAggregates(dataDir, db, log) {
  if (!existsSync(entry)) {
    log?.('dataset: insights aggregates NOT built: packages/server/dist/maintenance.js is missing (npm run build); GET /insights is skipped');
    return null;
  }
  const maintenance = await import(entry);
  const { rebuildInsightsAggregates } = maintenance;
  const t0 = performance.now();
  const cpu0 = process.cpuUsage();
  const rows = await rebuildInsightsAggregates(db?.databaseUrl ?? join(dataDir, 'testreport.db'));
  const seconds = (performance.now() - t0) / 1000;
  // SQLite runs in this process, so its CPU time is this process's: a figure that survives load.
  const cpu = process.cpuUsage(cpu0);
  const cpuSeconds = db?.databaseUrl ? undefined : (cpu.user + cpu.system) / 1e6;
  log?.(`dataset: insights aggregates rebuilt in ${seconds.toFixed(1)} s${cpuSeconds === undefined ? '' : ` (${cpuSeconds.toFixed(1)} s CPU)`} (${rows.days.toLocaleString('en-US')} day rows, ${rows.durations.toLocaleString('en-US')} duration rows; load ${loadavg().map((l) => l.toFixed(2)).join(' ')})`);
  // Folded as the server's job does at start (insights/rollup.ts), timed apart, before the server
  // starts: its first timed reads must not race its own first fold.
  let folded;
  if (typeof maintenance.foldInsightsAggregates === 'function') {
    const f0 = performance.now();
    const r = await maintenance.foldInsightsAggregates(db?.databaseUrl ?? join(dataDir, 'testreport.db'));
    folded = { seconds: (performance.now() - f0) / 1000, ...r };
    log?.(`dataset: insights aggregates folded in ${folded.seconds.toFixed(1)} s (${r.moved.toLocaleString('en-US')} upkeep rows into ${r.rollups.toLocaleString('en-US')} rollup rows)`);
  }
  return { seconds, cpuSeconds, ...rows, folded };
}

/** Folds a kept history's insights aggregates (after a build that folds them is first used on it). */
export async function foldKeptAggregates(dataDir, db, log) {
  if (!existsSync(entry)) return;
  const maintenance = await import(entry);
  if (typeof maintenance.foldInsightsAggregates !== 'function') return;
  const f0 = performance.now();
  const r = await maintenance.foldInsightsAggregates(db?.databaseUrl ?? join(dataDir, 'testreport.db'));
  log?.(`dataset: insights aggregates folded in ${((performance.now() - f0) / 1000).toFixed(1)} s (${r.moved.toLocaleString('en-US')} upkeep rows into ${r.rollups.toLocaleString('en-US')} rollup rows)`);
}

/**
 * Bytes the aggregates take on disk, tables with their indexes: { insight_case_days, insight_case_durations }.
 * SQLite from the dbstat table (pages of each table and of its indexes), PostgreSQL from pg_total_relation_size.
 */
export async function aggregatesBytes(dataDir, db) {
  const tables = ['insight_case_days', 'insight_case_durations', 'insight_rollups'];
  if (db?.databaseUrl) {
    const { default: pg } = await import('pg');
    const client = new pg.Client({ connectionString: db.databaseUrl });
    await client.connect();
    try {
      const { rows } = await client.query(`SELECT relname, pg_total_relation_size(oid) AS bytes FROM pg_class WHERE relname = ANY($1)`, [tables]);
      return Object.fromEntries(rows.map((r) => [r.relname, Number(r.bytes)]));
    } finally {
      await client.end();
    }
  }
  const { default: Database } = await import('better-sqlite3');
  const sqlite = new Database(join(dataDir, 'testreport.db'), { readonly: true });
  try {
    const out = {};
    for (const t of tables) {
      const names = [t, ...sqlite.prepare(`SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = ?`).all(t).map((r) => r.name)];
      out[t] = sqlite.prepare(`SELECT sum(pgsize) AS bytes FROM dbstat WHERE name IN (${names.map(() => '?').join(', ')})`).get(...names).bytes;
    }
    return out;
  } finally {
    sqlite.close();
  }
}
