import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { migrateToLatest, openDatabase } from '../db/database.js';
import { setGroupBounds } from '../db/groupCommit.js';
import { createTestPostgresDatabase, testDbKind } from './database.js';

const at = '2026-01-01T00:00:00.000Z';

/**
 * A migrated database of the kind TESTREPORT_TEST_DB names (SQLite as a file, as the server has it,
 * or PostgreSQL) for the group-commit tests (db/groupCommit.test.ts, db/jointWrites.test.ts): its
 * groups linger, so that concurrent calls land in one group however slow the machine, and it has a
 * table whose row breaks the COMMIT (a child checked only then: the way to make a group's commit fail).
 */
export async function openGroupTestDatabase(prefix: string) {
  const dir = mkdtempSync(join(tmpdir(), `testreport-${prefix}-`));
  const pg = testDbKind() === 'postgres' ? await createTestPostgresDatabase() : undefined;
  const opened = openDatabase(pg?.url ?? join(dir, 'testreport.db'));
  const { db } = opened;
  await migrateToLatest(db);
  await sql`create table gc_parent (id varchar(40) primary key)`.execute(db);
  await sql`create table gc_child (id varchar(40) primary key, parent_id varchar(40) references gc_parent(id) deferrable initially deferred)`.execute(db);
  setGroupBounds(db, { lingerMs: 30, alwaysLinger: true, maxMs: 60_000 });
  return {
    db,
    /** Rows the tests write: teams, which need nothing else. */
    addTeam: (id: string) => db.insertInto('teams').values({ id, name: id, created_at: at, updated_at: at }).execute(),
    teamIds: async (prefix: string) => (await db.selectFrom('teams').select('id').where('id', 'like', `${prefix}%`).orderBy('id').execute()).map((r) => r.id),
    /** A write that is fine until COMMIT, which then fails. */
    breakCommit: () => sql`insert into gc_child (id, parent_id) values ('orphan', 'missing')`.execute(db),
    orphans: async () => Number((await sql<{ n: number }>`select count(*) as n from gc_child`.execute(db)).rows[0]!.n),
    async close() {
      await opened.close();
      await pg?.drop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
export type GroupTestDatabase = Awaited<ReturnType<typeof openGroupTestDatabase>>;
