import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nodeSyncCalls, type SyncCalls } from './dialects/sqliteWalSync.js';
import { migrateToLatest, openDatabase, type OpenedDatabase } from './database.js';
import { groupCommit, setGroupBounds } from './groupCommit.js';
import { afterCommit, inTransaction } from './transaction.js';

/**
 * SQLite commits with synchronous = NORMAL and the server fsyncs the WAL itself, off the event loop
 * (dialects/sqliteWalSync.ts). What must hold for "a 2xx means the write survives a power loss":
 * nothing that wrote is answered (resolved) or acted on (after-commit work) before an fsync of the
 * WAL that began after its commit has ended, however the write was made.
 */
let dir: string;
let opened: OpenedDatabase;
const log: string[] = [];
const gates: (() => void)[] = [];
let holding = false;

const calls: SyncCalls = {
  ...nodeSyncCalls,
  async datasync(fd) {
    log.push('sync start');
    if (holding) await new Promise<void>((r) => gates.push(r));
    await nodeSyncCalls.datasync(fd);
    log.push('sync end');
  },
};

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'testreport-durable-'));
  opened = openDatabase(join(dir, 'testreport.db'), { syncCalls: calls });
  await migrateToLatest(opened.db);
});
afterAll(async () => {
  await opened?.close();
  rmSync(dir, { recursive: true, force: true });
});

const at = '2026-01-01T00:00:00.000Z';
const addTeam = (id: string) => opened.db.insertInto('teams').values({ id, name: id, created_at: at, updated_at: at }).execute();
const tick = () => new Promise((r) => setImmediate(r));

describe('SQLite: a write is durable before it counts as done', () => {
  it('inTransaction: the WAL is synced after the commit, before after-commit work and before it resolves', async () => {
    log.length = 0;
    await inTransaction(opened.db, async () => {
      await addTeam('d-1');
      afterCommit(() => void log.push('after commit'));
      log.push('work done');
    });
    log.push('resolved');
    expect(log).toEqual(['work done', 'sync start', 'sync end', 'after commit', 'resolved']);
  });

  it('a transaction that wrote nothing waits for no sync', async () => {
    log.length = 0;
    await inTransaction(opened.db, async () => {
      await opened.db.selectFrom('teams').selectAll().execute();
    });
    log.push('resolved');
    expect(log).toEqual(['resolved']);
  });

  it("a statement outside any transaction and Kysely's own transaction are synced before they resolve", async () => {
    log.length = 0;
    await addTeam('d-2');
    log.push('autocommit resolved');
    await opened.db.transaction().execute(async (trx) => {
      await trx.insertInto('teams').values({ id: 'd-3', name: 'd-3', created_at: at, updated_at: at }).execute();
    });
    log.push('transaction resolved');
    // A select outside a transaction runs on the read connection: no sync.
    await opened.db.selectFrom('teams').selectAll().execute();
    expect(log).toEqual(['sync start', 'sync end', 'autocommit resolved', 'sync start', 'sync end', 'transaction resolved']);
  });

  it('the next transaction runs while the previous one waits for the disk, and neither resolves before its sync', async () => {
    log.length = 0;
    holding = true;
    try {
      const first = inTransaction(opened.db, () => addTeam('d-4')).then(() => log.push('first resolved'));
      while (gates.length === 0) await tick();
      // The writer is free again: a second transaction commits while the first one's sync is held.
      const second = inTransaction(opened.db, () => addTeam('d-5')).then(() => log.push('second resolved'));
      for (let i = 0; i < 20 && !(await opened.db.selectFrom('teams').select('id').where('id', '=', 'd-5').executeTakeFirst()); i++) await tick();
      expect(await opened.db.selectFrom('teams').select('id').where('id', '=', 'd-5').executeTakeFirst()).toEqual({ id: 'd-5' });
      expect(log).toEqual(['sync start']);
      gates.shift()!();
      await first;
      // The second commit came after the first sync began: it needs one of its own.
      while (gates.length === 0) await tick();
      expect(log.indexOf('sync end')).toBeLessThan(log.indexOf('first resolved'));
      expect(log.filter((l) => l === 'sync start')).toHaveLength(2);
      expect(log).not.toContain('second resolved');
      gates.shift()!();
      await second;
      expect(log.slice(-2)).toEqual(['sync end', 'second resolved']);
    } finally {
      holding = false;
      for (const g of gates.splice(0)) g();
    }
  });

  it("group commit: every member is answered after its group's commit is synced, and the group's sync is shared", async () => {
    setGroupBounds(opened.db, { lingerMs: 30, alwaysLinger: true, maxMs: 60_000 });
    log.length = 0;
    const members = ['g-1', 'g-2', 'g-3'].map((id) => groupCommit(opened.db, () => addTeam(id)).then(() => log.push(`${id} answered`)));
    await Promise.all(members);
    expect(log.slice(0, 2)).toEqual(['sync start', 'sync end']);
    expect(log.slice(2).sort()).toEqual(['g-1 answered', 'g-2 answered', 'g-3 answered']);
  });
});
