import { chmodSync, closeSync, existsSync, openSync } from 'node:fs';
import Database from 'better-sqlite3';
import { OperationNodeTransformer, SqliteDialect, type KyselyPlugin, type PluginTransformQueryArgs, type PluginTransformResultArgs, type QueryResult, type RootOperationNode, type SelectQueryNode, type UnknownRow } from 'kysely';
import type { DialectSupport } from '../dialect.js';

const LOCKING = new Set(['ForUpdate', 'ForNoKeyUpdate', 'ForShare', 'ForKeyShare', 'NoWait', 'SkipLocked']);

/** SQLite has no row locks (a writing transaction holds the whole database): `FOR UPDATE` and kin are dropped. */
class DropRowLocks extends OperationNodeTransformer {
  protected override transformSelectQuery(node: SelectQueryNode): SelectQueryNode {
    const out = super.transformSelectQuery(node);
    if (!out.endModifiers?.some((m) => m.modifier && LOCKING.has(m.modifier))) return out;
    return { ...out, endModifiers: out.endModifiers.filter((m) => !(m.modifier && LOCKING.has(m.modifier))) };
  }
}
const rowLockPlugin: KyselyPlugin = {
  transformQuery: (args: PluginTransformQueryArgs): RootOperationNode => new DropRowLocks().transformNode(args.node),
  transformResult: async (args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> => args.result,
};

/**
 * The database holds password and key hashes: owner-only. SQLite gives its -wal and -shm files the
 * database file's mode, so creating that file 0600 first covers all three; chmod fixes older files.
 */
function createPrivate(file: string) {
  if (file === ':memory:' || file === '') return;
  if (!existsSync(file)) closeSync(openSync(file, 'a', 0o600));
  for (const f of [file, `${file}-wal`, `${file}-shm`]) if (existsSync(f)) chmodSync(f, 0o600);
}

const MAX_BOUND_PARAMS = 32_766;

export const sqlite: DialectSupport = {
  name: 'sqlite',
  handles: (url) => !/^[a-z][a-z0-9+.-]*:\/\//i.test(url) || url.startsWith('sqlite:'),
  maxBoundParams: MAX_BOUND_PARAMS,
  isUniqueViolation: (err) =>
    err instanceof Error &&
    (['SQLITE_CONSTRAINT_UNIQUE', 'SQLITE_CONSTRAINT_PRIMARYKEY'].includes((err as { code?: string }).code ?? '') || /UNIQUE constraint failed/i.test(err.message)),
  columnTypes: { bool: 'integer', json: 'text', timestamp: 'text', float: 'real' },
  // One SQLite file, one server: the process is alone, so exclusive work just runs.
  sharedByServers: false,
  exclusive: async (_db, _lock, work) => ({ ran: true, value: await work() }),
  async insertMany(db, table, rows) {
    if (rows.length === 0) return;
    // Half the bound-value limit as margin, and at most 200 rows: longer statements gained nothing.
    const perStatement = Math.max(1, Math.min(200, Math.floor(MAX_BOUND_PARAMS / 2 / Object.keys(rows[0]).length)));
    for (let i = 0; i < rows.length; i += perStatement) await db.insertInto(table).values(rows.slice(i, i + perStatement)).execute();
  },
  open(url) {
    const file = url.replace(/^sqlite:(\/\/)?/, '');
    createPrivate(file);
    const db = new Database(file);
    db.pragma('journal_mode = WAL');
    // A 2xx answer means the write survives a crash or power loss (decisions §2).
    db.pragma('synchronous = FULL');
    db.pragma('foreign_keys = ON');
    db.pragma('busy_timeout = 5000');
    return { dialect: new SqliteDialect({ database: db }), plugins: [rowLockPlugin] };
  },
};
