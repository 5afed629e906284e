// The database a bench part's server runs on: SQLite in the data dir (the default), or a fresh
// PostgreSQL database per part on 127.0.0.1:5432 (user postgres, trust), created here and dropped
// at the end so every part starts empty, as a new installation does.
import pg from 'pg';
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';

export const PG_ADMIN_URL = process.env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

let created = 0;

async function admin(sql) {
  const client = new pg.Client({ connectionString: PG_ADMIN_URL });
  await client.connect();
  try {
    return await client.query(sql);
  } finally {
    await client.end();
  }
}

/**
 * { kind, databaseUrl, sizeBytes(), drop() } for one part. databaseUrl is undefined for SQLite
 * (the server's default file in dataDir).
 */
export async function openBenchDatabase(kind, dataDir, existingUrl) {
  if (kind === 'sqlite') {
    const file = join(dataDir, 'testreport.db');
    return {
      kind,
      databaseUrl: undefined,
      async sizeBytes() {
        return [file, `${file}-wal`].reduce((sum, f) => sum + (existsSync(f) ? statSync(f).size : 0), 0);
      },
      async drop() {},
    };
  }
  if (kind !== 'postgres') throw new Error(`unknown database "${kind}": sqlite or postgres`);
  // existingUrl: a database an earlier run created and kept (bench/reads10m.mjs BENCH_KEEP_DATASET).
  const name = existingUrl ? new URL(existingUrl).pathname.slice(1) : `testreport_bench_${process.pid}_${++created}`;
  if (!existingUrl) await admin(`CREATE DATABASE ${name}`);
  const url = new URL(PG_ADMIN_URL);
  url.pathname = `/${name}`;
  const databaseUrl = url.toString();
  return {
    kind,
    databaseUrl,
    async sizeBytes() {
      const { rows } = await admin(`SELECT pg_database_size('${name}') AS bytes`);
      return Number(rows[0].bytes);
    },
    /** Process ids of the PostgreSQL backends connected to this database (for CPU accounting). */
    async backendPids() {
      const { rows } = await admin(`SELECT pid FROM pg_stat_activity WHERE datname = '${name}'`);
      return rows.map((r) => r.pid);
    },
    async drop() {
      await admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    },
  };
}

export const mb = (bytes) => `${(bytes / 2 ** 20).toFixed(0)} MB`;
