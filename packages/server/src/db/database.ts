import { Kysely, Migrator, type Migration, type MigrationProvider } from 'kysely';
import * as m001 from './migrations/001_initial.js';
import * as m002 from './migrations/002_results.js';
import * as m003 from './migrations/003_idempotency_secrets.js';
import * as m004 from './migrations/004_dashboard.js';
import type { Database as Schema } from './schema.js';
import { dialectFor } from './dialects/index.js';
import { scopedDialect } from './transaction.js';

export type Db = Kysely<Schema>;

/** Migrations are compiled in (no directory scan), so the bundled server carries them. */
const migrations: Record<string, Migration> = {
  '001_initial': m001,
  '002_results': m002,
  '003_idempotency_secrets': m003,
  '004_dashboard': m004,
};
class StaticMigrations implements MigrationProvider {
  async getMigrations() {
    return migrations;
  }
}

export interface OpenedDatabase {
  db: Db;
  close(): Promise<void>;
}

/**
 * Opens the database named by `url` with the dialect that handles it (`dialects/`). Services and
 * repositories use only portable Kysely queries; what differs lives in the dialect.
 */
export function openDatabase(url: string): OpenedDatabase {
  const { dialect, plugins, close } = dialectFor(url).open(url);
  const scoped = scopedDialect(dialect);
  const db = new Kysely<Schema>({ dialect: scoped.dialect, plugins });
  scoped.register(db);
  return {
    db,
    async close() {
      await db.destroy();
      await close?.();
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
