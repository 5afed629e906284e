import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { chunk, MAX_BOUND_PARAMS, rowsPerStatement } from './batch.js';
import { migrateToLatest, openDatabase } from './database.js';
import { dialectFor } from './dialects/index.js';
import { isUniqueViolation } from './errors.js';

const dir = mkdtempSync(join(tmpdir(), 'testreport-dialect-'));
const opened = openDatabase(join(dir, 'testreport.db'));
const { db } = opened;
afterAll(async () => {
  await opened.close();
  rmSync(dir, { recursive: true, force: true });
});

const team = (id: string) => ({ id, name: 'T', created_at: '2026-01-01T00:00:00.000Z', updated_at: '2026-01-01T00:00:00.000Z' });

describe('database seams (SQLite)', () => {
  it('picks the dialect from the URL and refuses PostgreSQL until it is built', () => {
    expect(dialectFor('/tmp/x.db').name).toBe('sqlite');
    expect(dialectFor('sqlite:///tmp/x.db').name).toBe('sqlite');
    expect(() => dialectFor('mysql://h/db')).toThrow(/unsupported --database-url/);
  });

  it('classifies a duplicate key as a unique violation, and a foreign-key failure as not one', async () => {
    await migrateToLatest(db);
    await db.insertInto('teams').values(team('t1')).execute();
    const dup = await db.insertInto('teams').values(team('t1')).execute().catch((e: unknown) => e);
    expect(isUniqueViolation(dup)).toBe(true);
    const fk = await db
      .insertInto('projects')
      .values({ id: 'p1', team_id: 'missing', name: 'P', created_at: 'x', updated_at: 'x' })
      .execute()
      .catch((e: unknown) => e);
    expect(fk).toBeInstanceOf(Error);
    expect(isUniqueViolation(fk)).toBe(false);
  });

  it('runs a FOR UPDATE read on SQLite by dropping the row lock', async () => {
    const q = db.selectFrom('teams').selectAll().where('id', '=', 't1').forUpdate();
    expect(q.compile().sql).not.toMatch(/for update/i);
    expect((await q.executeTakeFirst())?.id).toBe('t1');
  });

  it('sizes batches under the smallest bound-value limit', () => {
    expect(chunk([1, 2, 3, 4, 5], 2)).toEqual([[1, 2], [3, 4], [5]]);
    expect(rowsPerStatement(24, 200) * 24).toBeLessThan(MAX_BOUND_PARAMS);
    expect(rowsPerStatement(100_000)).toBe(1);
  });
});
