import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { nodeSyncCalls, WalSync, type SyncCalls } from './sqliteWalSync.js';

const dir = mkdtempSync(join(tmpdir(), 'testreport-walsync-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Node's calls on real files, with each datasync held until the test lets it finish. */
function gatedCalls() {
  const log: string[] = [];
  const gates: (() => void)[] = [];
  let failNext: Error | undefined;
  let unlinked = false;
  const calls: SyncCalls = {
    ...nodeSyncCalls,
    async open(path) {
      log.push(`open ${path.slice(dir.length + 1) || '(dir)'}`);
      return nodeSyncCalls.open(path);
    },
    async datasync(fd) {
      log.push('datasync start');
      await new Promise<void>((r) => gates.push(r));
      const fail = failNext;
      failNext = undefined;
      if (fail) throw fail;
      await nodeSyncCalls.datasync(fd);
      log.push('datasync end');
    },
    async fsync(fd) {
      log.push('fsync dir');
      return nodeSyncCalls.fsync(fd);
    },
    unlinked: () => unlinked,
  };
  const release = async () => {
    while (gates.length === 0) await new Promise((r) => setImmediate(r));
    gates.shift()!();
    await new Promise((r) => setImmediate(r));
  };
  return { calls, log, release, pending: () => gates.length, failWith: (e: Error) => (failNext = e), setUnlinked: (u: boolean) => (unlinked = u) };
}

const settledSoon = async (p: Promise<unknown>) => {
  let done = false;
  void p.then(() => (done = true), () => (done = true));
  for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
  return done;
};

/** A WalSync over a database with a WAL file, whose first sync is running (held by its gate). */
async function syncRunning(name: string) {
  const db = join(dir, name);
  writeFileSync(`${db}-wal`, 'wal');
  const g = gatedCalls();
  const sync = new WalSync(db, g.calls);
  const first = sync.sync();
  while (g.pending() === 0) await new Promise((r) => setImmediate(r));
  return { g, sync, first };
}

describe('WalSync: the WAL fsync off the event loop', () => {
  it('a caller arriving during a sync waits for the next one, which every such caller shares', async () => {
    const { g, sync, first } = await syncRunning('a.db');
    // These commits came after the running datasync began: it may not cover them.
    const second = sync.sync();
    const third = sync.sync();
    await g.release();
    await first;
    expect(await settledSoon(second)).toBe(false);
    expect(g.pending()).toBe(1);
    await g.release();
    await Promise.all([second, third]);
    expect(g.log.filter((l) => l === 'datasync start')).toHaveLength(2);
    // The data dir once (SQLite with FULL syncs the directory of a new WAL), the WAL's descriptor once.
    expect(g.log.filter((l) => l === 'fsync dir')).toHaveLength(1);
    expect(g.log.filter((l) => l.startsWith('open'))).toEqual(['open a.db-wal', 'open (dir)']);
    await sync.close();
  });

  it('a failed sync fails its callers; callers waiting for the next one are not failed by it', async () => {
    const { g, sync, first } = await syncRunning('b.db');
    const second = sync.sync();
    g.failWith(Object.assign(new Error('EIO: i/o error, fdatasync'), { code: 'EIO', syscall: 'fdatasync' }));
    await g.release();
    await expect(first).rejects.toMatchObject({ code: 'EIO' });
    await g.release();
    await expect(second).resolves.toBeUndefined();
    await sync.close();
  });

  it('with no WAL file the database file is synced; an unlinked WAL is opened again', async () => {
    const db = join(dir, 'c.db');
    writeFileSync(db, 'db');
    const g = gatedCalls();
    const sync = new WalSync(db, g.calls);
    const noWal = sync.sync();
    await g.release();
    await noWal;
    expect(g.log.filter((l) => l.startsWith('open'))).toEqual(['open c.db-wal', 'open c.db']);
    writeFileSync(`${db}-wal`, 'wal');
    const withWal = sync.sync();
    await g.release();
    await withWal;
    g.setUnlinked(true);
    const again = sync.sync();
    g.setUnlinked(false);
    await g.release();
    await again;
    expect(g.log.filter((l) => l.startsWith('open'))).toEqual(['open c.db-wal', 'open c.db', 'open c.db-wal', 'open (dir)', 'open c.db-wal']);
    await sync.close();
  });
});
