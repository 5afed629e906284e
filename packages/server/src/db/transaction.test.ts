import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrateToLatest, openDatabase } from './database.js';
import { afterCommit, inSavepoint, inTransaction, joinTransaction } from './transaction.js';

const dir = mkdtempSync(join(tmpdir(), 'testreport-trx-'));
const opened = openDatabase(join(dir, 'testreport.db'));
const { db } = opened;
beforeAll(() => migrateToLatest(db));
afterAll(async () => {
  await opened.close();
  rmSync(dir, { recursive: true, force: true });
});

const at = '2026-01-01T00:00:00.000Z';
const addTeam = (id: string) => db.insertInto('teams').values({ id, name: id, created_at: at, updated_at: at }).execute();
const teamIds = async () => (await db.selectFrom('teams').select('id').orderBy('id').execute()).map((r) => r.id);

describe('inTransaction: the current transaction of an async call chain', () => {
  it('makes plain `db` queries below it one transaction: all of them commit, or none', async () => {
    await inTransaction(db, async () => {
      await addTeam('a1');
      await addTeam('a2');
    });
    await expect(
      inTransaction(db, async () => {
        await addTeam('b1');
        throw new Error('crash before the end');
      }),
    ).rejects.toThrow('crash before the end');
    expect(await teamIds()).toEqual(['a1', 'a2']);
  });

  it('turns a nested db.transaction() into a savepoint: its rollback undoes only its own part', async () => {
    await inTransaction(db, async () => {
      await addTeam('c1');
      await db
        .transaction()
        .execute(async (trx) => {
          await trx.insertInto('teams').values({ id: 'c2', name: 'c2', created_at: at, updated_at: at }).execute();
          throw new Error('inner fails');
        })
        .catch(() => undefined);
      await db.transaction().execute((trx) => trx.insertInto('teams').values({ id: 'c3', name: 'c3', created_at: at, updated_at: at }).execute());
    });
    expect(await teamIds()).toEqual(['a1', 'a2', 'c1', 'c3']);
  });

  it('inSavepoint undoes only its own writes inside a transaction, and is plain work outside one', async () => {
    await inTransaction(db, async () => {
      await addTeam('s1');
      await inSavepoint(db, async () => {
        await addTeam('s2');
        throw new Error('listener fails');
      }).catch(() => undefined);
    });
    await inSavepoint(db, () => addTeam('s3'));
    const ids = await teamIds();
    expect(ids).toEqual(expect.arrayContaining(['s1', 's3']));
    expect(ids).not.toContain('s2');
  });

  it('joinTransaction is a transaction of its own outside one: all of its writes commit, or none', async () => {
    await expect(joinTransaction(db, async () => {
      await addTeam('j1');
      throw new Error('second write failed');
    })).rejects.toThrow('second write failed');
    await joinTransaction(db, async () => {
      await addTeam('j2');
      await addTeam('j3');
    });
    const ids = await teamIds();
    expect(ids).toEqual(expect.arrayContaining(['j2', 'j3']));
    expect(ids).not.toContain('j1');
  });

  it('joinTransaction inside a transaction adds no savepoint: its writes share the enclosing fate', async () => {
    // Its failure, let through as callers must, undoes everything, the enclosing writes included.
    await expect(inTransaction(db, async () => {
      await addTeam('k1');
      await joinTransaction(db, async () => {
        await addTeam('k2');
        throw new Error('batch refused');
      });
    })).rejects.toThrow('batch refused');
    // Without a savepoint, nothing undoes its part alone: a caught failure keeps the writes made before it.
    await inTransaction(db, async () => {
      await joinTransaction(db, async () => {
        await addTeam('k3');
        throw new Error('caught below');
      }).catch(() => undefined);
    });
    const ids = await teamIds();
    expect(ids).not.toContain('k1');
    expect(ids).not.toContain('k2');
    expect(ids).toContain('k3');
  });

  it('runs afterCommit work only once the transaction committed, and never after a rollback', async () => {
    const seen: string[] = [];
    await inTransaction(db, async () => {
      afterCommit(() => seen.push('committed'));
      await addTeam('d1');
      expect(seen).toEqual([]);
    });
    await inTransaction(db, async () => {
      afterCommit(() => seen.push('rolled back'));
      throw new Error('no');
    }).catch(() => undefined);
    afterCommit(() => seen.push('no transaction'));
    expect(seen).toEqual(['committed', 'no transaction']);
  });

  it('lets concurrent callers outside the scope wait for the commit instead of joining it', async () => {
    let release: () => void = () => {};
    const gate = new Promise<void>((r) => (release = r));
    const inside = inTransaction(db, async () => {
      await addTeam('e1');
      await gate;
    });
    const outside = addTeam('e2');
    release();
    await Promise.all([inside, outside]);
    expect(await teamIds()).toContain('e2');
    await expect(inTransaction(db, async () => {
      await addTeam('e3');
      throw new Error('rollback');
    })).rejects.toThrow();
    expect(await teamIds()).not.toContain('e3');
  });
});
