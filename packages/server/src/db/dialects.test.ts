import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openMigratedTestDatabase } from '../testing/database.js';
import { chunk, MAX_BOUND_PARAMS, rowsPerStatement } from './batch.js';
import { openDatabase, type OpenedDatabase } from './database.js';
import { dialectFor } from './dialects/index.js';
import { EFFECTIVE_IO_CONCURRENCY } from './dialects/postgres.js';
import { insertMany, writeMany } from './bulk.js';
import { isUniqueViolation } from './errors.js';
import { runExclusive } from './locks.js';

const team = (id: string) => ({ id, name: 'T', created_at: '2026-01-01T00:00:00.000Z', updated_at: '2026-01-01T00:00:00.000Z' });

describe('dialect choice', () => {
  it('picks the dialect from the URL and names an unsupported one', () => {
    expect(dialectFor('/tmp/x.db').name).toBe('sqlite');
    expect(dialectFor('sqlite:///tmp/x.db').name).toBe('sqlite');
    expect(dialectFor('postgres://u@h:5432/db').name).toBe('postgres');
    expect(dialectFor('postgresql://u@h/db').name).toBe('postgres');
    expect(() => dialectFor('mysql://user:pw@h/db')).toThrow(/unsupported --database-url: mysql:\/\/…@h\/db/);
  });

  it('sizes batches under the smallest bound-value limit', () => {
    expect(chunk([1, 2, 3, 4, 5], 2)).toEqual([[1, 2], [3, 4], [5]]);
    expect(rowsPerStatement(24, 200) * 24).toBeLessThan(MAX_BOUND_PARAMS);
    expect(rowsPerStatement(100_000)).toBe(1);
  });
});

// The same seams on both databases; PostgreSQL gets a fresh database of its own.
describe.each(['sqlite', 'postgres'] as const)('database seams (%s)', (kind) => {
  let opened: OpenedDatabase;
  let close: (() => Promise<void>) | undefined;
  let pgUrl: string | undefined;
  beforeAll(async () => {
    ({ opened, close, url: pgUrl } = await openMigratedTestDatabase(kind, { empty: true }));
  });
  afterAll(async () => {
    await close?.();
  });

  it('classifies a duplicate key as a unique violation, and a foreign-key failure as not one', async () => {
    const { db } = opened;
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

  it('runs a FOR UPDATE SKIP LOCKED read (SQLite drops the row lock, PostgreSQL keeps it)', async () => {
    const q = opened.db.selectFrom('teams').selectAll().where('id', '=', 't1').forUpdate().skipLocked();
    expect(/for update skip locked/i.test(q.compile().sql)).toBe(kind === 'postgres');
    expect((await q.executeTakeFirst())?.id).toBe('t1');
  });

  // SQLite has no such setting; only PostgreSQL reads table pages ahead for a bitmap scan.
  it.runIf(kind === 'postgres')('has each PostgreSQL connection read ahead for bitmap scans, as the text searches need', async () => {
    const settings = await Promise.all([1, 2, 3].map(() => opened.db.connection().execute((c) => sql<{ v: string }>`select current_setting('effective_io_concurrency') as v`.execute(c))));
    expect(settings.map((r) => r.rows[0].v)).toEqual([String(EFFECTIVE_IO_CONCURRENCY), String(EFFECTIVE_IO_CONCURRENCY), String(EFFECTIVE_IO_CONCURRENCY)]);
    // A higher value the database was given by its administrator stays.
    const name = new URL(pgUrl!).pathname.slice(1);
    await sql`alter database ${sql.id(name)} set effective_io_concurrency = 200`.execute(opened.db);
    const other = openDatabase(pgUrl!);
    try {
      const { rows } = await sql<{ v: string }>`select current_setting('effective_io_concurrency') as v`.execute(other.db);
      expect(rows[0].v).toBe('200');
    } finally {
      await other.close();
      await sql`alter database ${sql.id(name)} reset effective_io_concurrency`.execute(opened.db);
    }
  });

  it('reads counts as numbers and keeps 8-byte floats exact', async () => {
    const { db } = opened;
    const { n } = await db.selectFrom('teams').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    expect(n).toBe(1);
    await db.insertInto('projects').values({ id: 'p2', team_id: 't1', name: 'P', created_at: 'x', updated_at: 'x' }).execute();
    await db.insertInto('project_settings').values({ project_id: 'p2', data_retention_days: 30, flakiness_threshold: 1 / 3, auto_quarantine_enabled: 0, shard_timeout_minutes: 30, updated_at: 'x' }).execute();
    const s = await db.selectFrom('project_settings').selectAll().where('project_id', '=', 'p2').executeTakeFirstOrThrow();
    expect(s.flakiness_threshold).toBe(1 / 3);
    expect(s.auto_quarantine_enabled).toBe(0);
  });

  it('bulk-inserts rows of awkward text, nulls and numbers exactly, in a transaction, past one statement', async () => {
    const { db } = opened;
    await db.insertInto('projects').values({ id: 'p-bulk', team_id: 't1', name: 'P', created_at: 'x', updated_at: 'x' }).execute();
    await db.insertInto('runs').values({ id: 'r-bulk', project_id: 'p-bulk', status: 'passed', created_at: 'x', updated_at: 'x' } as never).execute();
    await db.insertInto('test_cases').values({ id: 'c-bulk', project_id: 'p-bulk', full_title: 'f', title: 't', created_at: 'x', updated_at: 'x' } as never).execute();
    const awkward = ['quote \' and "double"', 'back\\slash', '{braces},[commas]', 'NULL', '', 'emoji 🧪 ü', 'new\nline'];
    const rows = Array.from({ length: 12_000 }, (_, i) => ({
      id: `t-${String(i).padStart(5, '0')}`, run_id: 'r-bulk', project_id: 'p-bulk', case_id: 'c-bulk', title: awkward[i % awkward.length], full_title: 'f',
      file_path: i % 2 ? null : 'a.spec.ts', line_number: i % 2 ? null : i, status: 'passed', duration: [1.5, 1 / 3, 0][i % 3], retries: i % 4, attempt: 0,
      is_flaky: i % 2, tags: '["@a"]', annotations: null, error: i % 5 ? null : awkward[(i + 1) % awkward.length], error_message: null, steps: '[]',
      stdout: null, stderr: null, branch: null, commit_sha: null, created_at: 'x', run_attempt: 1, error_fingerprint: null, attempts: null, owners: null,
    }));
    await db.transaction().execute((trx) => insertMany(trx, 'tests', rows));
    expect(await db.selectFrom('tests').selectAll().where('run_id', '=', 'r-bulk').orderBy('id').execute()).toEqual(rows);
    await expect(insertMany(db, 'tests', [])).resolves.toBeUndefined();
  });

  it('fails a bulk insert that breaks a constraint as a unique violation, rolls it back and keeps the connection usable', async () => {
    const { db } = opened;
    const row = (id: string) => ({
      id, run_id: 'r-bulk', project_id: 'p-bulk', case_id: 'c-bulk', title: 't', full_title: 'f', file_path: null, line_number: null, status: 'passed',
      duration: 1, retries: 0, attempt: 0, is_flaky: 0, tags: '[]', annotations: '[]', error: null, error_message: null, steps: '[]', stdout: null,
      stderr: null, branch: null, commit_sha: null, created_at: 'x', run_attempt: 1, error_fingerprint: null, attempts: null, owners: null,
    });
    // t-00000 is stored by the test above: the third row collides.
    const err = await db.transaction().execute((trx) => insertMany(trx, 'tests', [row('dup-a'), row('dup-b'), row('t-00000')])).catch((e: unknown) => e);
    expect(isUniqueViolation(err)).toBe(true);
    expect(await db.selectFrom('tests').select('id').where('id', 'in', ['dup-a', 'dup-b']).execute()).toEqual([]);
    // The pool's connections still answer, and a bulk insert after the failure goes through.
    for (let i = 0; i < 12; i++) expect(Number((await sql<{ n: number }>`select 1 as n`.execute(db)).rows[0]!.n)).toBe(1);
    await insertMany(db, 'tests', [row('dup-a')]);
    expect(await db.selectFrom('tests').select('id').where('id', '=', 'dup-a').execute()).toEqual([{ id: 'dup-a' }]);
  });

  it('writes many rows with an upsert that returns, keeps the builder\'s constants, joins the transaction and rolls back with it', async () => {
    const { db } = opened;
    await db.insertInto('projects').values({ id: 'p-wm', team_id: 't1', name: 'P', created_at: 'x', updated_at: 'x' }).execute();
    const upsert = (trx: typeof db, rows: { id: string; project_id: string; file_path: string; full_title: string; title: string }[]) =>
      writeMany<{ id: string; title: string }>(trx, rows, (part) =>
        trx
          .insertInto('test_cases')
          .values(part.map((r) => ({ ...(r as (typeof rows)[number]), stats_dirty: 1, created_at: 'x', updated_at: 'x' })))
          .onConflict((oc) => oc.columns(['project_id', 'file_path', 'full_title']).doUpdateSet((eb) => ({ title: eb.ref('excluded.title'), stats_dirty: 7 })))
          .returning(['id', 'title']), 2);
    const rows = Array.from({ length: 5 }, (_, i) => ({ id: `wm-${i}`, project_id: 'p-wm', file_path: i % 2 ? '' : 'a \'b\' 🧪', full_title: `f${i}`, title: `t${i}` }));
    expect(await db.transaction().execute((trx) => upsert(trx, rows))).toEqual(rows.map((r) => ({ id: r.id, title: r.title })));
    // Conflicts update and return the stored id; the constant of the update set is bound as given.
    const again = rows.map((r) => ({ ...r, id: `${r.id}-new`, title: `${r.title}!` }));
    expect(await upsert(db, again)).toEqual(rows.map((r) => ({ id: r.id, title: `${r.title}!` })));
    expect((await db.selectFrom('test_cases').select('stats_dirty').where('project_id', '=', 'p-wm').execute()).map((r) => r.stats_dirty)).toEqual([7, 7, 7, 7, 7]);
    await expect(db.transaction().execute(async (trx) => {
      await upsert(trx, [{ id: 'wm-rolled-back', project_id: 'p-wm', file_path: '', full_title: 'gone', title: 'g' }]);
      throw new Error('undo');
    })).rejects.toThrow('undo');
    expect(await db.selectFrom('test_cases').select('id').where('id', '=', 'wm-rolled-back').execute()).toEqual([]);
    expect(await writeMany(db, [], () => { throw new Error('not called'); }, 2)).toEqual([]);
  });

  it('lets one holder at a time run exclusive work', async () => {
    const { db } = opened;
    const inner: boolean[] = [];
    const outer = await runExclusive(db, 'dialect-test', async () => {
      // SQLite has one server, so nothing else can hold it; PostgreSQL refuses a second holder.
      inner.push(await runExclusive(db, 'dialect-test', async () => undefined));
    });
    expect(outer).toBe(true);
    expect(inner).toEqual([kind === 'sqlite']);
    expect(await runExclusive(db, 'dialect-test', async () => undefined)).toBe(true);
  });

  it('produces the same tables on both dialects', async () => {
    // The search index's own tables (migration 018: FTS5 tables and their shadow tables on SQLite, the
    // titles' table on PostgreSQL) are each dialect's form of an index, not part of the data model.
    const tables = kind === 'sqlite'
      ? await sql<{ name: string }>`select name from sqlite_master where type = 'table' and name not like 'sqlite_%' and name not like 'kysely_%' and name not like 'tests_search%' and name not like 'cases_search%' order by name`.execute(opened.db)
      : await sql<{ name: string }>`select tablename as name from pg_tables where schemaname = 'public' and tablename not like 'kysely_%' and tablename <> 'cases_search' order by tablename`.execute(opened.db);
    expect(tables.rows.map((r) => r.name)).toEqual([
      'api_keys', 'artifacts', 'email_tokens', 'error_group_cases', 'error_group_runs', 'error_group_totals', 'idempotency_keys', 'insight_case_days', 'insight_case_durations', 'insight_pending', 'insight_rollups', 'invitations', 'oidc_logins', 'oidc_team_grants', 'project_settings', 'projects',
      'quarantine_events', 'rate_limit_windows', 'run_result_counts', 'run_shards', 'runs', 'sessions', 'snapshot_acceptances', 'team_members', 'teams', 'test_cases', 'test_suites', 'tests',
      'user_identities', 'users', 'webhook_attempts', 'webhook_deliveries', 'webhooks',
    ]);
  });
});
