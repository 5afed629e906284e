import pg from 'pg';
import { newId } from '../lib/ids.js';

// Tests that look at the database beside the servers (several servers, one database) open it the
// way the server does, and take the server's cross-server locks.
export { openDatabase, type OpenedDatabase } from '../db/database.js';
export { runExclusive } from '../db/locks.js';

/**
 * Which database the test servers run on: `TESTREPORT_TEST_DB=postgres` runs every real-server test
 * on PostgreSQL (a fresh database per server, dropped on close); anything else keeps SQLite in the
 * server's temp data dir. `TESTREPORT_TEST_PG_URL` names the cluster (default: local trust auth).
 */
export const testDbKind = (): 'sqlite' | 'postgres' => (process.env.TESTREPORT_TEST_DB === 'postgres' ? 'postgres' : 'sqlite');
const clusterUrl = () => process.env.TESTREPORT_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

export interface TestDatabase {
  /** `--database-url` of the new database. */
  url: string;
  /** Drops the database (servers using it must be closed first; leftovers are cut off). */
  drop(): Promise<void>;
}

async function onCluster<T>(work: (c: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: clusterUrl() });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** A fresh, empty PostgreSQL database for one test (or for several servers sharing it). */
export async function createTestPostgresDatabase(): Promise<TestDatabase> {
  const name = `testreport_test_${newId().replace(/-/g, '').slice(-16)}_${process.pid}`;
  await onCluster((c) => c.query(`CREATE DATABASE ${name}`));
  const url = new URL(clusterUrl());
  url.pathname = `/${name}`;
  let dropped: Promise<void> | null = null;
  return {
    url: url.toString(),
    drop() {
      dropped ??= onCluster(async (c) => {
        await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      });
      return dropped;
    },
  };
}
