import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { migrateToLatest, openDatabase, type OpenedDatabase } from '../database.js';
import { FALLBACK_AUTOCHECKPOINT_PAGES } from './sqliteCheckpointer.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

async function openFresh(): Promise<{ opened: OpenedDatabase; file: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'testreport-ckpt-'));
  dirs.push(dir);
  const file = join(dir, 'testreport.db');
  const opened = openDatabase(file);
  await migrateToLatest(opened.db);
  return { opened, file };
}

async function until(check: () => boolean, ms: number): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (check()) return true;
    await new Promise((r) => setTimeout(r, 20));
  }
  return check();
}

describe('SQLite checkpoints on a thread of their own', () => {
  it('copies committed pages into the database file without the server connection doing it', async () => {
    const { opened, file } = await openFresh();
    const { db } = opened;
    const before = statSync(file).size;
    const at = '2026-01-01T00:00:00.000Z';
    // ≈ 300 pages: far below the server connection's own threshold, so only the thread can move them.
    await db.transaction().execute(async (trx) => {
      for (let i = 0; i < 300; i++) {
        await trx.insertInto('teams').values({ id: `t${i}`, name: `team ${i} ${'x'.repeat(3000)}`, created_at: at, updated_at: at }).execute();
      }
    });
    expect(300).toBeLessThan(FALLBACK_AUTOCHECKPOINT_PAGES);
    expect(await until(() => statSync(file).size > before + 300 * 3000, 5_000)).toBe(true);
    expect(await db.selectFrom('teams').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).toEqual({ n: 300 });
    await opened.close();
  });

  it('is stopped by close(): no connection is left, so SQLite removes the WAL', async () => {
    const { opened, file } = await openFresh();
    expect(existsSync(`${file}-wal`)).toBe(true);
    await opened.close();
    expect(existsSync(`${file}-wal`)).toBe(false);
    // Reopening sees everything (the migrations) and starts a new thread.
    const again = openDatabase(file);
    expect((await again.db.selectFrom('teams').select('id').execute()).length).toBe(0);
    await again.close();
  });
});
