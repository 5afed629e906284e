import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDbKind } from '../testing/database.js';
import { startTestServer, type TestServer } from '../testing/harness.js';
import { createRun, postTests, testBody } from '../testing/results.js';
import { createTestRepo } from './repo.js';
import * as m027 from '../db/migrations/027_results_fk_pg.js';

// A stored result belongs to a run and a test case, and goes when either goes. SQLite keeps that
// with foreign keys; PostgreSQL with a share lock per batch on its runs and statement triggers on
// `runs` and `test_cases` (migration 027). These check the behaviour on both, and on PostgreSQL the
// two interleavings a per-row foreign key used to settle.
let t: TestServer;
beforeAll(async () => {
  t = await startTestServer({ backgroundJobs: false });
}, 180_000);
afterAll(() => t?.close());

const db = () => t.server.services.deps.db;
const onPostgres = it.runIf(testDbKind() === 'postgres');
const resultsOf = async (column: 'run_id' | 'case_id', id: string) => (await db().selectFrom('tests').select('id').where(column, '=', id).execute()).length;

/** Resolves once some statement waits for a lock another transaction holds. */
async function someoneWaits() {
  for (let i = 0; i < 500; i++) {
    const { rows } = await sql<{ n: string }>`select count(*) as n from pg_locks where not granted`.execute(db());
    if (Number(rows[0]!.n) > 0) return;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error('nobody waited for the lock');
}

/** A transaction that holds until `release()`; `done` settles after its commit. */
function holdTransaction(work: (trx: any) => Promise<void>) {
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  let started!: () => void;
  const ready = new Promise<void>((r) => (started = r));
  const done = db().transaction().execute(async (trx) => {
    await work(trx);
    started();
    await gate;
  });
  return { ready, release, done };
}

describe('results go with their run and their case', () => {
  it('deleting a test case deletes its results, in every run', async () => {
    const a = await createRun(t);
    const b = await createRun(t);
    const [first] = await postTests(t, [testBody(a.id, t.projectId, { fullTitle: 'case to delete' })]);
    await postTests(t, [testBody(b.id, t.projectId, { fullTitle: 'case to delete' }), testBody(b.id, t.projectId, { fullTitle: 'case to keep' })]);
    const caseId = (await db().selectFrom('tests').select('case_id').where('id', '=', first!.id).executeTakeFirstOrThrow()).case_id;
    expect(await resultsOf('case_id', caseId)).toBe(2);
    await db().deleteFrom('test_cases').where('id', '=', caseId).execute();
    expect(await resultsOf('case_id', caseId)).toBe(0);
    if (testDbKind() === 'postgres') expect((await sql`select 1 from cases_search where case_id = ${caseId}`.execute(db())).rows).toEqual([]);
    expect(await resultsOf('run_id', b.id)).toBe(1);
  });

  it('a batch naming a run that does not exist stores nothing and names the field', async () => {
    const run = await createRun(t);
    const res = await t.api('POST', '/tests/batch', {
      auth: t.apiKey,
      body: { tests: [testBody(run.id, t.projectId, { fullTitle: 'stored with the batch?' }), testBody('01a00000-0000-7000-8000-000000000000', t.projectId)] },
    });
    expect(res.status).toBe(400);
    expect(JSON.stringify(res.body)).toContain('tests[1].runId');
    expect(await resultsOf('run_id', run.id)).toBe(0);
  });

  onPostgres('a run deleted while a batch waits for it fails the batch with a 400, and nothing of the batch is stored', async () => {
    const run = await createRun(t);
    const title = `raced with a deletion ${Date.now()}`;
    // The deletion holds the run's row until released; the batch has checked the run by then (the
    // uncommitted delete is invisible to it) and waits for the row in its own transaction.
    const deletion = holdTransaction(async (trx) => {
      await trx.deleteFrom('runs').where('id', '=', run.id).execute();
    });
    await deletion.ready;
    const batch = t.api('POST', '/tests/batch', { auth: t.apiKey, body: { tests: [testBody(run.id, t.projectId, { fullTitle: title })] } });
    // Released whatever happens, so a failure here does not leave the transaction open.
    await someoneWaits().finally(deletion.release);
    await deletion.done;
    const res = await batch;
    expect(res.status).toBe(400);
    expect(JSON.stringify(res.body)).toContain('tests[0].runId');
    expect(await resultsOf('run_id', run.id)).toBe(0);
    expect(await db().selectFrom('test_cases').select('id').where('full_title', '=', title).execute()).toEqual([]);
  });

  onPostgres('a run deleted while a batch holds it waits for the batch, then takes the batch’s results too', async () => {
    const run = await createRun(t);
    const [stored] = await postTests(t, [testBody(run.id, t.projectId, { fullTitle: 'stored before' })]);
    const row = await db().selectFrom('tests').selectAll().where('id', '=', stored!.id).executeTakeFirstOrThrow();
    // A batch's transaction between its lock on the run and its commit.
    const batch = holdTransaction(async (trx) => {
      expect((await createTestRepo(trx).lockRuns([run.id])).map((r) => r.id)).toEqual([run.id]);
      await trx.insertInto('tests').values({ ...row, id: `${row.id.slice(0, -4)}ffff` }).execute();
    });
    await batch.ready;
    const deletion = t.api('DELETE', `/runs/${run.id}`, { auth: t.apiKey });
    await someoneWaits().finally(batch.release);
    await batch.done;
    expect((await deletion).status).toBe(200);
    expect(await resultsOf('run_id', run.id)).toBe(0);
  });

  onPostgres('migration 027 goes down to the foreign keys and up again, keeping every result', async () => {
    const keys = async () =>
      (await sql<{ conname: string }>`select conname from pg_constraint where conrelid = 'tests'::regclass and contype = 'f' order by conname`.execute(db())).rows.map((r) => r.conname);
    const run = await createRun(t);
    await postTests(t, [testBody(run.id, t.projectId, { fullTitle: 'kept across 027' })]);
    const total = async () => (await db().selectFrom('tests').select('id').execute()).length;
    const before = await total();
    const searchKeys = async () => (await sql`select 1 from pg_constraint where conrelid = 'cases_search'::regclass and contype = 'f'`.execute(db())).rows.length;
    expect(await keys()).toEqual([]);
    expect(await searchKeys()).toBe(0);
    await m027.down(db());
    expect(await keys()).toEqual(['tests_case_id_fkey', 'tests_run_id_fkey']);
    expect(await searchKeys()).toBe(1);
    expect(await total()).toBe(before);
    await m027.up(db());
    expect(await keys()).toEqual([]);
    expect(await searchKeys()).toBe(0);
    await db().deleteFrom('runs').where('id', '=', run.id).execute();
    expect(await resultsOf('run_id', run.id)).toBe(0);
  });
});
