import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDbKind } from '../testing/database.js';
import { openGroupTestDatabase, type GroupTestDatabase } from '../testing/groupDatabase.js';
import { groupCommit } from './groupCommit.js';
import { inTransaction, whenCommitted } from './transaction.js';

// On the database TESTREPORT_TEST_DB names: SQLite (a file, as the server has) or PostgreSQL.
let opened: GroupTestDatabase;
beforeAll(async () => {
  opened = await openGroupTestDatabase('group');
});
afterAll(async () => {
  await opened?.close();
});

const addTeam = (id: string) => opened.addTeam(id);
const teamIds = (prefix: string) => opened.teamIds(prefix);
/** The transaction a statement runs in: the same id for every member of one group. */
const txid = async () =>
  testDbKind() === 'postgres' ? String((await sql<{ id: string }>`select txid_current()::text as id`.execute(opened.db)).rows[0]!.id) : 'sqlite';

describe('groupCommit: concurrent writes share one transaction, each in a savepoint', () => {
  it('a failing statement in one member rolls back only that member; the others commit (also on PostgreSQL)', async () => {
    await addTeam('x-taken');
    const txids: string[] = [];
    const results = await Promise.allSettled(
      ['x-1', 'x-2', 'x-taken', 'x-3', 'x-4'].map((id) =>
        groupCommit(opened.db, async () => {
          txids.push(await txid());
          await addTeam(`${id}-first`);
          // A unique violation: on PostgreSQL it aborts the transaction unless inside a savepoint.
          await addTeam(id);
          return id;
        }),
      ),
    );
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'fulfilled', 'fulfilled']);
    expect(String((results[2] as PromiseRejectedResult).reason)).toMatch(/unique|duplicate/i);
    // One transaction for all five (PostgreSQL shows it; SQLite has one writer anyway).
    expect(new Set(txids).size).toBe(1);
    // The failed member's first insert is gone with its savepoint; every other member is whole.
    expect(await teamIds('x-')).toEqual(['x-1', 'x-1-first', 'x-2', 'x-2-first', 'x-3', 'x-3-first', 'x-4', 'x-4-first', 'x-taken']);
  });

  it('answers a member only after the commit, and runs its after-commit work then, not for a failed member', async () => {
    const events: string[] = [];
    const member = (id: string, fail: boolean) =>
      groupCommit(opened.db, async () => {
        await addTeam(id);
        // Work that must see the commit (as CI activity after a stored result): from another connection.
        await whenCommitted(async () => {
          events.push(`after ${id}: ${(await teamIds('a-')).join(',')}`);
        });
        if (fail) throw new Error(`${id} refused`);
        return id;
      }).then((v) => events.push(`answered ${v}`));
    const results = await Promise.allSettled([member('a-1', false), member('a-2', true), member('a-3', false)]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    for (const id of ['a-1', 'a-3']) {
      const after = events.indexOf(`after ${id}: a-1,a-3`);
      expect(after).toBeGreaterThanOrEqual(0);
      expect(events.indexOf(`answered ${id}`)).toBeGreaterThan(after);
    }
    expect(events).toHaveLength(4);
    expect(await teamIds('a-')).toEqual(['a-1', 'a-3']);
  });

  it('a failed commit fails every member of the group and stores nothing of any of them', async () => {
    const results = await Promise.allSettled([
      groupCommit(opened.db, () => addTeam('c-1')),
      groupCommit(opened.db, () => opened.breakCommit()),
      groupCommit(opened.db, () => addTeam('c-2')),
    ]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected', 'rejected']);
    for (const r of results) expect(String((r as PromiseRejectedResult).reason)).toMatch(/foreign key/i);
    expect(await teamIds('c-')).toEqual([]);
    expect(await opened.orphans()).toBe(0);
    // The queue goes on: the next group commits.
    await groupCommit(opened.db, () => addTeam('c-3'));
    expect(await teamIds('c-')).toEqual(['c-3']);
  });

  it('reads outside a transaction are answered while a group holds the writer', async () => {
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    const writing = groupCommit(opened.db, async () => {
      await addTeam('r-1');
      await held;
    });
    await new Promise((r) => setTimeout(r, 60));
    // The group is open and waiting: this read would hang behind it on a single SQLite connection.
    expect(await teamIds('r-')).toEqual([]);
    release();
    await writing;
    expect(await teamIds('r-')).toEqual(['r-1']);
  });
});

describe.skipIf(testDbKind() === 'postgres')('groupCommit on SQLite: where savepoints journal their pages', () => {
  /** 2: in memory; 0: SQLite's default, a temporary file once the journal passes 64 KiB. */
  const tempStore = async () => Number((await sql<{ temp_store: number }>`pragma temp_store`.execute(opened.db)).rows[0]!.temp_store);

  it("a group's transaction keeps its members' savepoint journal in memory; any other transaction keeps the default", async () => {
    expect(await groupCommit(opened.db, tempStore)).toBe(2);
    // A retention sweep's or a migration's statements may journal hundreds of megabytes.
    expect(await inTransaction(opened.db, tempStore)).toBe(0);
    expect(await tempStore()).toBe(0);
  });

  it('a group whose member fails, or whose commit fails, sets the default back too', async () => {
    await expect(groupCommit(opened.db, async () => { await opened.breakCommit(); })).rejects.toThrow(/foreign key/i);
    await expect(groupCommit(opened.db, async () => { throw new Error('refused'); })).rejects.toThrow('refused');
    expect(await inTransaction(opened.db, tempStore)).toBe(0);
  });
});
