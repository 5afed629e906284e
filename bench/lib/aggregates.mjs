// The insights aggregates (GET /insights, issue 27) of a generated history. Ingestion keeps them as
// results arrive; a history written straight into the tables gets them the way migration 017 builds
// them for results stored before it: the server's own countAllResults (insights/upkeep.ts), loaded
// from source through tsx as the fingerprint is (bench/lib/errors.mjs), on the server's own
// database layer. A build without the aggregate tables gets nothing (returns null).
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import pg from 'pg';

const source = (path) => fileURLToPath(new URL(`../../packages/server/src/${path}`, import.meta.url));

async function hasAggregates(dataDir, db) {
  if (db?.databaseUrl) {
    const client = new pg.Client({ connectionString: db.databaseUrl });
    await client.connect();
    try {
      return (await client.query(`SELECT to_regclass('insight_case_days') IS NOT NULL AS ok`)).rows[0].ok;
    } finally {
      await client.end();
    }
  }
  const file = new Database(join(dataDir, 'testreport.db'), { readonly: true });
  try {
    return !!file.prepare(`SELECT 1 FROM sqlite_master WHERE name = 'insight_case_days'`).get();
  } finally {
    file.close();
  }
}

export async function fillInsightsAggregates(dataDir, db, log) {
  if (!(await hasAggregates(dataDir, db))) return null;
  const t0 = performance.now();
  const { tsImport } = await import('tsx/esm/api');
  const { openDatabase } = await tsImport(source('db/database.ts'), import.meta.url);
  const { countAllResults } = await tsImport(source('insights/upkeep.ts'), import.meta.url);
  const opened = openDatabase(db?.databaseUrl ?? join(dataDir, 'testreport.db'));
  try {
    // One transaction, as the migration runs in one (on SQLite a commit per statement otherwise).
    await opened.db.transaction().execute((trx) => countAllResults(trx));
  } finally {
    await opened.close();
  }
  const seconds = (performance.now() - t0) / 1000;
  log?.(`dataset: insights aggregates built in ${seconds.toFixed(1)} s`);
  return { seconds };
}
