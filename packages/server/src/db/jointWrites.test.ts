import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openGroupTestDatabase, type GroupTestDatabase } from '../testing/groupDatabase.js';
import { setGroupBounds } from './groupCommit.js';
import { jointCommit, together } from './jointWrites.js';
import { inSavepoint } from './transaction.js';

// On the database TESTREPORT_TEST_DB names: SQLite (a file, as the server has) or PostgreSQL.
let opened: GroupTestDatabase;
beforeAll(async () => {
  opened = await openGroupTestDatabase('joint');
});
afterAll(async () => {
  await opened?.close();
});

const at = '2026-01-01T00:00:00.000Z';
const teamIds = (prefix: string) => opened.teamIds(prefix);

/** The shared part, as results/service.ts stores a joint's tests: one multi-row insert, a record of each call. */
function sharedInsert() {
  const calls: string[][] = [];
  const insertAll = async (ids: string[]) => {
    calls.push(ids);
    await opened.db.insertInto('teams').values(ids.map((id) => ({ id, name: id, created_at: at, updated_at: at }))).execute();
    return ids.map((id) => `stored ${id}`);
  };
  return { calls, insertAll };
}

describe('jointCommit: concurrent calls run as one member and share their common work', () => {
  it('stores the calls of one joint with one run of the shared work, each answered with its own part', async () => {
    const { calls, insertAll } = sharedInsert();
    const ids = ['j-1', 'j-2', 'j-3', 'j-4'];
    const answers = await Promise.all(
      ids.map((id) =>
        jointCommit(opened.db, async () => {
          // Each call's own write first (as its Idempotency-Key record), then the shared part.
          await opened.db.insertInto('teams').values({ id: `${id}-own`, name: id, created_at: at, updated_at: at }).execute();
          return together(id, insertAll);
        }),
      ),
    );
    expect(answers).toEqual(ids.map((id) => `stored ${id}`));
    expect(calls).toEqual([ids]);
    expect(await teamIds('j-')).toEqual(['j-1', 'j-1-own', 'j-2', 'j-2-own', 'j-3', 'j-3-own', 'j-4', 'j-4-own']);
  });

  it('a call that finishes without the shared work (a replay) does not hold the others back', async () => {
    const { calls, insertAll } = sharedInsert();
    const answers = await Promise.all([
      jointCommit(opened.db, () => together('k-1', insertAll)),
      jointCommit(opened.db, async () => 'replayed'),
      jointCommit(opened.db, () => together('k-2', insertAll)),
    ]);
    expect(answers).toEqual(['stored k-1', 'replayed', 'stored k-2']);
    expect(calls).toEqual([['k-1', 'k-2']]);
  });

  it('when one call fails, every call runs again alone: the failing one gets its own error, the others are stored', async () => {
    const { calls, insertAll } = sharedInsert();
    const results = await Promise.allSettled(
      ['f-1', 'f-bad', 'f-3'].map((id) =>
        jointCommit(opened.db, async () => {
          await opened.db.insertInto('teams').values({ id: `${id}-own`, name: id, created_at: at, updated_at: at }).execute();
          const stored = await together(id, insertAll);
          if (id === 'f-bad') throw new Error('f-bad refused');
          return stored;
        }),
      ),
    );
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(String((results[1] as PromiseRejectedResult).reason)).toMatch(/f-bad refused/);
    // The joint's writes were rolled back with its savepoint; then each call alone.
    expect(calls).toEqual([['f-1', 'f-bad', 'f-3'], ['f-1'], ['f-bad'], ['f-3']]);
    expect(await teamIds('f-')).toEqual(['f-1', 'f-1-own', 'f-3', 'f-3-own']);
  });

  it('a failing shared statement (PostgreSQL aborts the transaction) sends every call back to run alone', async () => {
    await opened.addTeam('s-taken');
    const { calls, insertAll } = sharedInsert();
    const results = await Promise.allSettled(['s-1', 's-taken', 's-3'].map((id) => jointCommit(opened.db, () => together(id, insertAll))));
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(String((results[1] as PromiseRejectedResult).reason)).toMatch(/unique|duplicate/i);
    expect(calls).toHaveLength(4);
    expect(await teamIds('s-')).toEqual(['s-1', 's-3', 's-taken']);
  });

  it('calls with the same key are never in one joint: the second runs after the first, and sees its write', async () => {
    const seen: string[][] = [];
    const call = (key: string, id: string) =>
      jointCommit(
        opened.db,
        async () => {
          seen.push(await teamIds('d-'));
          await opened.db.insertInto('teams').values({ id, name: id, created_at: at, updated_at: at }).execute();
          return id;
        },
        key,
      );
    expect(await Promise.all([call('same', 'd-1'), call('other', 'd-2'), call('same', 'd-3')])).toEqual(['d-1', 'd-2', 'd-3']);
    // d-1 and d-2 ran together (neither saw the other's write); d-3 ran after them.
    expect(seen.slice(0, 2)).toEqual([[], []]);
    expect(seen[2]).toEqual(['d-1', 'd-2']);
  });

  it('a savepoint inside a joint call is refused there, and the calls run alone, each with its savepoint', async () => {
    // Concurrent savepoints on one connection would pop each other's names: the rollback of p-a's
    // would undo p-b's insert and keep p-a's.
    const inOwnSavepoint = (id: string, fail: boolean) =>
      jointCommit(opened.db, async () => {
        try {
          await inSavepoint(opened.db, async () => {
            await opened.db.insertInto('teams').values({ id, name: id, created_at: at, updated_at: at }).execute();
            await new Promise((r) => setTimeout(r, 5));
            if (fail) throw new Error(`${id} undone`);
          });
        } catch (err) {
          if (!String(err).includes('undone')) throw err;
        }
        return id;
      });
    expect(await Promise.all([inOwnSavepoint('p-a', true), inOwnSavepoint('p-b', false)])).toEqual(['p-a', 'p-b']);
    expect(await teamIds('p-')).toEqual(['p-b']);
  });

  it('a failed commit fails every call of the joint, none is run again, and nothing is stored', async () => {
    const { calls, insertAll } = sharedInsert();
    const results = await Promise.allSettled([
      jointCommit(opened.db, () => together('c-1', insertAll)),
      jointCommit(opened.db, async () => {
        await opened.breakCommit();
        return together('c-2', insertAll);
      }),
    ]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    for (const r of results) expect(String((r as PromiseRejectedResult).reason)).toMatch(/foreign key/i);
    expect(calls).toEqual([['c-1', 'c-2']]);
    expect(await teamIds('c-')).toEqual([]);
  });

  it('outside a joint (a lone call, or inside a transaction of its own) the shared work runs for the one item', async () => {
    const { calls, insertAll } = sharedInsert();
    expect(await together('o-1', insertAll)).toBe('stored o-1');
    expect(await jointCommit(opened.db, () => together('o-2', insertAll))).toBe('stored o-2');
    expect(calls).toEqual([['o-1'], ['o-2']]);
  });

  it('once writers overlap, a joint stops waiting for company when it holds half the calls last seen in flight', async () => {
    // A wait far beyond the test's timeout: only the company ends it.
    setGroupBounds(opened.db, { lingerMs: 600_000, alwaysLinger: false });
    try {
      const { calls, insertAll } = sharedInsert();
      // Eight calls at once: the most in flight is 8, and the next joint knows writers overlap.
      const first = ['h-01', 'h-02', 'h-03', 'h-04', 'h-05', 'h-06', 'h-07', 'h-08'];
      await Promise.all(first.map((id) => jointCommit(opened.db, () => together(id, insertAll))));
      // Then four, one per turn of the event loop, as requests arrive: the joint runs with the fourth.
      const second = ['h-11', 'h-12', 'h-13', 'h-14'];
      const answers: Promise<string>[] = [];
      for (const id of second) {
        answers.push(jointCommit(opened.db, () => together(id, insertAll)));
        await new Promise((r) => setImmediate(r));
      }
      expect(await Promise.all(answers)).toEqual(second.map((id) => `stored ${id}`));
      expect(calls).toEqual([first, second]);
    } finally {
      setGroupBounds(opened.db, { lingerMs: 30, alwaysLinger: true });
    }
  }, 20_000);
});
