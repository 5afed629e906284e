import { Kysely, Migrator, type LogConfig, type Migration, type MigrationProvider } from 'kysely';
import * as m001 from './migrations/001_initial.js';
import * as m002 from './migrations/002_results.js';
import * as m003 from './migrations/003_idempotency_secrets.js';
import * as m004 from './migrations/004_dashboard.js';
import * as m005 from './migrations/005_rate_limits.js';
import * as m006 from './migrations/006_webhook_format.js';
import * as m007 from './migrations/007_ci_builds.js';
import * as m008 from './migrations/008_run_summary.js';
import * as m009 from './migrations/009_attempts.js';
import * as m010 from './migrations/010_secrets_at_rest.js';
import * as m011 from './migrations/011_flaky_lifecycle.js';
import * as m012 from './migrations/012_oidc.js';
import * as m014 from './migrations/014_failure_intelligence.js';
import * as m015 from './migrations/015_search.js';
import * as m016 from './migrations/016_baselines.js';
import * as m017 from './migrations/017_insights.js';
import * as m018 from './migrations/018_search_by_case.js';
import * as m019 from './migrations/019_error_group_aggregates.js';
import * as m021 from './migrations/021_insights_lean.js';
import * as m022 from './migrations/022_insight_rollups.js';
import * as m023 from './migrations/023_rollups_fillfactor.js';
import * as m024 from './migrations/024_cases_fillfactor.js';
import * as m025 from './migrations/025_idempotency_compressed.js';
import * as m026 from './migrations/026_insights_lean_pg.js';
import * as m027 from './migrations/027_results_fk_pg.js';
import * as m028 from './migrations/028_pending_without_fk_sqlite.js';
import * as m029 from './migrations/029_byte_collation_pg.js';
import * as m030 from './migrations/030_run_result_counts.js';
import type { Database as Schema } from './schema.js';
import type { DialectSupport, OpenOptions } from './dialect.js';
import { dialectFor } from './dialects/index.js';
import { scopedDialect } from './transaction.js';
import { forgetColumnTypes } from './dialects/postgresBinaryCopy.js';

export type Db = Kysely<Schema>;
/** What a migration may ask of the dialect: only its column types (one migration set for every database). */
export type MigrationTypes = DialectSupport['columnTypes'];
/** What a migration that rewrites stored secrets needs: the server secret (and earlier ones, to open old values). */
export interface MigrationContext {
  secret?: string;
  previousSecrets?: readonly string[];
}
interface DialectMigration {
  up(db: Kysely<any>, types: MigrationTypes, ctx: MigrationContext): Promise<void>;
  down?(db: Kysely<any>, types: MigrationTypes, ctx: MigrationContext): Promise<void>;
}

/** Migrations are compiled in (no directory scan), so the bundled server carries them. */
const migrations: Record<string, DialectMigration> = {
  '001_initial': m001,
  '002_results': m002,
  '003_idempotency_secrets': m003,
  '004_dashboard': m004,
  '005_rate_limits': m005,
  '006_webhook_format': m006,
  '007_ci_builds': m007,
  '008_run_summary': m008,
  '009_attempts': m009,
  '010_secrets_at_rest': m010,
  '011_flaky_lifecycle': m011,
  '012_oidc': m012,
  '014_failure_intelligence': m014,
  '015_search': m015,
  '016_baselines': m016,
  '017_insights': m017,
  '018_search_by_case': m018,
  '019_error_group_aggregates': m019,
  '021_insights_lean': m021,
  '022_insight_rollups': m022,
  '023_rollups_fillfactor': m023,
  '024_cases_fillfactor': m024,
  '025_idempotency_compressed': m025,
  '026_insights_lean_pg': m026,
  '027_results_fk_pg': m027,
  '028_pending_without_fk_sqlite': m028,
  '029_byte_collation_pg': m029,
  '030_run_result_counts': m030,
};
class StaticMigrations implements MigrationProvider {
  constructor(
    private readonly types: MigrationTypes,
    private readonly ctx: MigrationContext,
  ) {}
  async getMigrations() {
    const out: Record<string, Migration> = {};
    for (const [name, m] of Object.entries(migrations)) {
      out[name] = { up: (db) => m.up(db, this.types, this.ctx), down: m.down && ((db) => m.down!(db, this.types, this.ctx)) };
    }
    return out;
  }
}

/** The code of every migration, in order: test support keys its migrated template database by it. */
export const migrationSource = (): string =>
  Object.entries(migrations)
    .map(([name, m]) => `${name}\n${String(m.up)}\n${String(m.down ?? '')}`)
    .join('\n');

/**
 * The dialect each open database was opened with, for `db/` helpers (services never ask). Keyed by
 * the Kysely adapter, which a database shares with its transactions, so a `trx` finds it too.
 */
const dialectOfDb = new WeakMap<object, DialectSupport>();
const adapterOf = (db: Kysely<any>): object => db.getExecutor().adapter;

export interface OpenedDatabase {
  db: Db;
  close(): Promise<void>;
}

/**
 * Opens the database named by `url` with the dialect that handles it (`dialects/`). Services and
 * repositories use only portable Kysely queries; what differs lives in the dialect.
 */
export function openDatabase(url: string, opts: { log?: LogConfig } & OpenOptions = {}): OpenedDatabase {
  const { dialect, plugins, close, durableAfterCommit, groupTransactions } = dialectFor(url).open(url, { warn: opts.warn, syncCalls: opts.syncCalls });
  const scoped = scopedDialect(dialect, durableAfterCommit, groupTransactions);
  const db = new Kysely<Schema>({ dialect: scoped.dialect, plugins, log: opts.log });
  scoped.register(db);
  dialectOfDb.set(adapterOf(db), dialectFor(url));
  return {
    db,
    async close() {
      await db.destroy();
      await close?.();
    },
  };
}

/** The dialect `db` was opened with: for `db/` helpers only (services and repos never ask). */
export function dialectOf(db: Kysely<any>): DialectSupport {
  const support = dialectOfDb.get(adapterOf(db));
  if (!support) throw new Error('this database was not opened with openDatabase()');
  return support;
}

/**
 * Brings the schema up to date. On PostgreSQL Kysely's migrator holds an advisory lock while it
 * runs, so several servers starting at once against one database migrate it exactly once.
 */
export async function migrateToLatest(db: Db, ctx: MigrationContext = {}): Promise<void> {
  // Unordered: a migration that lands after a higher-numbered one (work merged from parallel branches) still runs.
  const migrator = new Migrator({ db, provider: new StaticMigrations(dialectOf(db).columnTypes, ctx), allowUnorderedMigrations: true });
  const { error, results } = await migrator.migrateToLatest();
  // A COPY during the migrations may have read tables that have changed since.
  forgetColumnTypes(db);
  const failed = results?.find((r) => r.status === 'Error');
  if (error || failed) {
    throw new Error(`database migration failed${failed ? ` at ${failed.migrationName}` : ''}: ${String(error)}`);
  }
}
