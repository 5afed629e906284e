import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { migrateToLatest, migrationSource, openDatabase as openDb, type OpenedDatabase } from '../db/database.js';
import { postgresSearch } from '../db/dialects/postgresSearch.js';
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

/**
 * A migrated template database, made once per cluster and migration set (named by a hash of the
 * migrations' code and of the dialect code some of them call, so a changed migration gets a new one): copying it is much cheaper than running
 * every migration for each of the hundreds of servers a test run starts. Made under an advisory
 * lock and renamed into place when complete, so concurrent test workers never see half of one.
 */
let template: Promise<string> | null = null;
function migratedTemplate(): Promise<string> {
  template ??= (async () => {
    // Migrations that hand their work to the dialect (015, 018: the search index) change with it.
    const delegated = [postgresSearch.create, postgresSearch.v1.create, postgresSearch.indexInserted].map(String).join('\n');
    const name = `testreport_tpl_${createHash('sha256').update(migrationSource()).update(delegated).digest('hex').slice(0, 16)}`;
    await onCluster(async (c) => {
      await c.query(`SELECT pg_advisory_lock(hashtext('testreport-test-template'))`);
      try {
        const { rowCount } = await c.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
        if (rowCount) return;
        const building = `${name}_building_${process.pid}`;
        await c.query(`DROP DATABASE IF EXISTS ${building}`);
        await c.query(`CREATE DATABASE ${building}`);
        const url = new URL(clusterUrl());
        url.pathname = `/${building}`;
        const opened = openDb(url.toString());
        try {
          await migrateToLatest(opened.db);
        } finally {
          await opened.close();
        }
        await c.query(`ALTER DATABASE ${building} RENAME TO ${name}`);
      } finally {
        await c.query(`SELECT pg_advisory_unlock(hashtext('testreport-test-template'))`);
      }
    });
    return name;
  })();
  template.catch(() => {
    template = null;
  });
  return template;
}

/**
 * A fresh PostgreSQL database for one test (or for several servers sharing it), already migrated
 * (a copy of the template; the server's own migration run then finds nothing to do), or with
 * `empty: true` without any table, for tests of migration itself.
 */
export async function createTestPostgresDatabase(opts: { empty?: boolean } = {}): Promise<TestDatabase> {
  const tpl = opts.empty ? null : await migratedTemplate();
  const name = `testreport_test_${newId().replace(/-/g, '').slice(-16)}_${process.pid}`;
  await onCluster((c) => c.query(tpl ? `CREATE DATABASE ${name} TEMPLATE ${tpl}` : `CREATE DATABASE ${name}`));
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

/**
 * A migrated database of `kind` for a test file that checks both dialects: SQLite in a temp dir, or
 * a fresh PostgreSQL database (`empty`: migrated from nothing here instead of copied from the
 * template; `url` is then its address). `close()` closes it and removes it.
 */
export async function openMigratedTestDatabase(kind: 'sqlite' | 'postgres', opts: { empty?: boolean } = {}): Promise<{ opened: OpenedDatabase; url?: string; close(): Promise<void> }> {
  const dir = mkdtempSync(join(tmpdir(), 'testreport-db-'));
  const database = kind === 'postgres' ? await createTestPostgresDatabase(opts) : null;
  const opened = openDb(database ? database.url : join(dir, 'testreport.db'));
  await migrateToLatest(opened.db);
  return {
    opened,
    url: database?.url,
    async close() {
      await opened.close();
      await database?.drop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
