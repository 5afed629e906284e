// The error-group aggregates of a generated history (issue 27; packages/server/src/errorGroups/upkeep.ts).
// Ingestion keeps them as failures arrive; a history written straight into the tables gets them the
// way migration 019 builds them: the server's own backfill statements
// (packages/server/src/errorGroups/backfill.ts, loaded from source through tsx as errors.mjs loads
// the fingerprint), run here on the bench's connection, so the bench measures the rows ingestion
// would have left. The server's migrations created the (empty) tables when the data dir was initialised.
import Database from 'better-sqlite3';
import pg from 'pg';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

async function loadBackfill() {
  const { tsImport } = await import('tsx/esm/api');
  const source = fileURLToPath(new URL('../../packages/server/src/errorGroups/backfill.ts', import.meta.url));
  return (await tsImport(source, import.meta.url)).ERROR_AGGREGATES_BACKFILL;
}

/** Fills error_group_runs, error_group_cases and error_group_totals from the stored failures; returns { seconds, rows }. */
export async function fillErrorAggregates(dataDir, db, log) {
  const statements = await loadBackfill();
  const t0 = performance.now();
  let rows;
  if (db?.databaseUrl) {
    const client = new pg.Client({ connectionString: db.databaseUrl });
    await client.connect();
    try {
      for (const s of statements) await client.query(s);
      await client.query('ANALYZE error_group_runs, error_group_cases, error_group_totals');
      const { rows: n } = await client.query('SELECT (SELECT count(*) FROM error_group_runs) AS runs, (SELECT count(*) FROM error_group_cases) AS cases, (SELECT count(*) FROM error_group_totals) AS totals');
      rows = { runs: Number(n[0].runs), cases: Number(n[0].cases), totals: Number(n[0].totals) };
    } finally {
      await client.end();
    }
  } else {
    const sqlite = new Database(join(dataDir, 'testreport.db'));
    try {
      sqlite.transaction(() => { for (const s of statements) sqlite.exec(s); })();
      sqlite.exec('ANALYZE error_group_runs; ANALYZE error_group_cases; ANALYZE error_group_totals;');
      rows = sqlite.prepare('SELECT (SELECT count(*) FROM error_group_runs) AS runs, (SELECT count(*) FROM error_group_cases) AS cases, (SELECT count(*) FROM error_group_totals) AS totals').get();
    } finally {
      sqlite.close();
    }
  }
  const seconds = (performance.now() - t0) / 1000;
  log?.(`dataset: error-group aggregates built in ${seconds.toFixed(1)} s (${rows.runs} run rows, ${rows.cases} case rows, ${rows.totals} totals rows)`);
  return { seconds, rows };
}
