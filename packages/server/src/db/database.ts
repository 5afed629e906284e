import Database from 'better-sqlite3';
import { Kysely, Migrator, SqliteDialect, type Migration, type MigrationProvider } from 'kysely';
import * as m001 from './migrations/001_initial.js';
import * as m002 from './migrations/002_results.js';
import * as m003 from './migrations/003_dashboard.js';
import type { Database as Schema } from './schema.js';

export type Db = Kysely<Schema>;

/** Migrations are compiled in (no directory scan), so the bundled server carries them. */
const migrations: Record<string, Migration> = {
  '001_initial': m001,
  '002_results': m002,
  '003_dashboard': m003,
};
class StaticMigrations implements MigrationProvider {
  async getMigrations() {
    return migrations;
  }
}

export interface OpenedDatabase {
  db: Db;
  /** The raw driver, for the few things Kysely cannot say (pragmas, checkpoints). */
  close(): Promise<void>;
}

/**
 * Opens the database named by `url`. Only SQLite is built in today; the dialect is the seam where
 * PostgreSQL plugs in (services and repositories use only portable Kysely queries).
 */
export function openDatabase(url: string): OpenedDatabase {
  if (/^postgres(ql)?:\/\//.test(url)) {
    throw new Error('PostgreSQL is not supported yet: omit --database-url to use SQLite in the data dir');
  }
  const file = url.replace(/^sqlite:(\/\/)?/, '');
  const sqlite = new Database(file);
  sqlite.pragma('journal_mode = WAL');
  // A 2xx answer means the write survives a crash or power loss (decisions §2).
  sqlite.pragma('synchronous = FULL');
  sqlite.pragma('foreign_keys = ON');
  sqlite.pragma('busy_timeout = 5000');
  const db = new Kysely<Schema>({ dialect: new SqliteDialect({ database: sqlite }) });
  return {
    db,
    async close() {
      await db.destroy();
    },
  };
}

export async function migrateToLatest(db: Db): Promise<void> {
  const migrator = new Migrator({ db, provider: new StaticMigrations() });
  const { error, results } = await migrator.migrateToLatest();
  const failed = results?.find((r) => r.status === 'Error');
  if (error || failed) {
    throw new Error(`database migration failed${failed ? ` at ${failed.migrationName}` : ''}: ${String(error)}`);
  }
}
