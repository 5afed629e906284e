import pg from 'pg';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTestPostgresDatabase, openMigratedTestDatabase, type TestDatabase } from '../testing/database.js';
import { openDatabase, type OpenedDatabase } from './database.js';
import { insertMany } from './bulk.js';
import { isUniqueViolation } from './errors.js';
import { executeLater } from './later.js';
import { inSavepoint, inTransaction } from './transaction.js';

const team = (id: string) => ({ id, name: 'T', created_at: '2026-01-01T00:00:00.000Z', updated_at: '2026-01-01T00:00:00.000Z' });

// Writes held back until the transaction's next statement (PostgreSQL) or run at once (SQLite) must
// store and fail alike: the same checks on both.
describe.each(['sqlite', 'postgres'] as const)('writes whose result nobody reads (%s)', (kind) => {
  let opened: OpenedDatabase;
  let close: (() => Promise<void>) | undefined;
  const db = () => opened.db;
  const later = (id: string) => executeLater(db(), db().insertInto('teams').values(team(id)).compile());
  const stored = async () => (await db().selectFrom('teams').select('id').orderBy('id').execute()).map((r) => r.id);

  beforeAll(async () => {
    ({ opened, close } = await openMigratedTestDatabase(kind));
  });
  afterAll(async () => {
    await close?.();
  });
  beforeEach(async () => {
    await db().deleteFrom('teams').execute();
    await db().insertInto('teams').values(team('a')).execute();
  });

  it('stores them at the commit, and the transaction reads them before', async () => {
    const seen = await inTransaction(db(), async () => {
      await later('b');
      await later('c');
      return stored();
    });
    expect(seen).toEqual(['a', 'b', 'c']);
    expect(await stored()).toEqual(['a', 'b', 'c']);
  });

  it('fails the transaction when one fails, with its error, and keeps none of it', async () => {
    const err = await inTransaction(db(), async () => {
      await db().insertInto('teams').values(team('b')).execute();
      await later('a');
      await later('c');
      return stored();
    }).catch((e: unknown) => e);
    expect(isUniqueViolation(err)).toBe(true);
    expect(await stored()).toEqual(['a']);
  });

  it('fails at the commit when the last writes fail, and keeps none of it', async () => {
    const err = await inTransaction(db(), async () => {
      await later('b');
      await insertMany(db(), 'teams', [team('c'), team('a')]);
    }).catch((e: unknown) => e);
    expect(isUniqueViolation(err)).toBe(true);
    expect(await stored()).toEqual(['a']);
  });

  it('loses a rolled-back savepoint\'s writes and keeps the ones before and after it', async () => {
    await inTransaction(db(), async () => {
      await later('b');
      await inSavepoint(db(), async () => {
        await later('x');
        throw new Error('given up');
      }).catch(() => {});
      await later('c');
    });
    expect(await stored()).toEqual(['a', 'b', 'c']);
  });

  it('fails only the savepoint whose write failed', async () => {
    const err = await inTransaction(db(), async () => {
      await later('b');
      const failed = await inSavepoint(db(), () => later('a')).catch((e: unknown) => e);
      await later('c');
      return failed;
    });
    expect(isUniqueViolation(err)).toBe(true);
    expect(await stored()).toEqual(['a', 'b', 'c']);
  });
});

describe('held back on PostgreSQL', () => {
  let opened: OpenedDatabase;
  let database: TestDatabase;
  let watcher: pg.Client;
  beforeAll(async () => {
    database = await createTestPostgresDatabase();
    opened = openDatabase(database.url);
    watcher = new pg.Client({ connectionString: database.url });
    await watcher.connect();
  });
  afterAll(async () => {
    await watcher?.end();
    await opened?.close();
    await database?.drop();
  });

  // What PostgreSQL itself shows: no transaction open until a statement needs an answer, so the
  // BEGIN and the writes before it went in one round trip with that statement.
  it('sends nothing, BEGIN included, until a statement needs an answer', async () => {
    const db = opened.db;
    const openTransactions = async () =>
      Number((await watcher.query(`select count(*)::int as n from pg_stat_activity where datname = current_database() and xact_start is not null and pid <> pg_backend_pid()`)).rows[0].n);
    const counts = await inTransaction(db, async () => {
      await executeLater(db, db.insertInto('teams').values(team('held')).compile());
      const before = await openTransactions();
      await db.selectFrom('teams').select('id').execute();
      return [before, await openTransactions()];
    });
    expect(counts).toEqual([0, 1]);
    expect(await db.selectFrom('teams').select('id').where('id', '=', 'held').execute()).toHaveLength(1);
  });
});
