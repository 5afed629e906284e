import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setGroupBounds } from '../db/groupCommit.js';
import { testDbKind } from '../testing/database.js';
import { startTestServer, type TestServer } from '../testing/harness.js';
import { createRun, testBody } from '../testing/results.js';

// Group commit over HTTP (issue 30): concurrent small writes share one transaction; each request
// keeps its own all-or-nothing answer and Idempotency-Key record. A trigger makes a test titled
// "statement fails" fail its INSERT, and one titled "commit fails" leave a row that breaks a
// deferred foreign key, so the whole group's COMMIT fails.
let t: TestServer;
const db = () => t.server.services.deps.db;
beforeAll(async () => {
  t = await startTestServer();
  // Requests sent together land in one group for certain, however slow the machine.
  setGroupBounds(db(), { lingerMs: 150, alwaysLinger: true, maxMs: 60_000 });
  await sql`create table gc_parent (id varchar(40) primary key)`.execute(db());
  await sql`create table gc_child (id varchar(40) primary key, parent_id varchar(40) references gc_parent(id) deferrable initially deferred)`.execute(db());
  if (testDbKind() === 'postgres') {
    await sql`create function gc_trigger() returns trigger language plpgsql as $$ begin
      if new.full_title = 'statement fails' then raise exception 'statement fails'; end if;
      if new.full_title = 'commit fails' then insert into gc_child (id, parent_id) values (new.id, 'missing'); end if;
      return new; end $$`.execute(db());
    await sql`create trigger gc_trigger after insert on tests for each row execute function gc_trigger()`.execute(db());
  } else {
    await sql`create trigger gc_statement before insert on tests when new.full_title = 'statement fails' begin select raise(abort, 'statement fails'); end`.execute(db());
    await sql`create trigger gc_commit after insert on tests when new.full_title = 'commit fails' begin insert into gc_child (id, parent_id) values (new.id, 'missing'); end`.execute(db());
  }
}, 180_000);
afterAll(async () => {
  await t?.close();
});

const idem = (key: string) => ({ 'Idempotency-Key': key });
const titlesOf = async (runId: string) => (await db().selectFrom('tests').select('full_title').where('run_id', '=', runId).orderBy('full_title').execute()).map((r) => r.full_title);
const keysLike = async (prefix: string) => (await db().selectFrom('idempotency_keys').select('key').where('key', 'like', `${prefix}%`).execute()).map((r) => r.key).sort();

describe('group commit of POST /tests, POST /test-suites and PATCH /runs/:id', () => {
  it('one failing request of a group fails alone; a retry with the same Idempotency-Key replays the stored answer', async () => {
    const run = await createRun(t);
    const titles = ['t-0', 't-1', 't-2', 'statement fails', 't-4', 't-5'];
    const send = (title: string, i: number) =>
      t.api('POST', '/tests', {
        auth: t.apiKey,
        // t-5 names a run that does not exist: a 400 of its own.
        body: testBody(i === 5 ? '00000000-0000-0000-0000-000000000000' : run.id, t.projectId, { fullTitle: title }),
        headers: idem(`g1-${i}`),
      });
    const first = await Promise.all(titles.map(send));
    expect(first.map((r) => r.status)).toEqual([201, 201, 201, 500, 201, 400]);
    expect(first[5]!.body.error.message).toMatch(/no run/);
    expect(await titlesOf(run.id)).toEqual(['t-0', 't-1', 't-2', 't-4']);
    // A record for each stored request, none for the failed ones (their retry does the work).
    expect(await keysLike('g1-')).toEqual(['g1-0', 'g1-1', 'g1-2', 'g1-4']);

    const again = await Promise.all(titles.map(send));
    for (const i of [0, 1, 2, 4]) {
      expect(again[i]!.status).toBe(201);
      expect(again[i]!.headers.get('idempotent-replayed')).toBe('true');
      expect(again[i]!.body).toEqual(first[i]!.body);
    }
    expect(again[3]!.status).toBe(500);
    expect(await titlesOf(run.id)).toEqual(['t-0', 't-1', 't-2', 't-4']);
  });

  it('a failed commit fails every request of the group and stores nothing; the retries then store each once', async () => {
    const run = await createRun(t);
    const requests = [
      () => t.api('POST', '/tests', { auth: t.apiKey, body: testBody(run.id, t.projectId, { fullTitle: 'c-0' }), headers: idem('g2-0') }),
      () => t.api('POST', '/tests', { auth: t.apiKey, body: testBody(run.id, t.projectId, { fullTitle: 'commit fails' }), headers: idem('g2-1') }),
      () => t.api('POST', '/test-suites', { auth: t.apiKey, body: { runId: run.id, projectId: t.projectId, title: 'cart.spec.ts', filePath: 'tests/cart.spec.ts' }, headers: idem('g2-2') }),
      () => t.api('PATCH', `/runs/${run.id}`, { auth: t.apiKey, body: { status: 'passed' } }),
    ];
    const first = await Promise.all(requests.map((r) => r()));
    expect(first.map((r) => r.status)).toEqual([500, 500, 500, 500]);
    expect(await titlesOf(run.id)).toEqual([]);
    expect(await db().selectFrom('test_suites').select('id').where('run_id', '=', run.id).execute()).toEqual([]);
    expect((await t.api('GET', `/runs/${run.id}`, { auth: t.apiKey })).body.status).toBe('running');
    expect(await keysLike('g2-')).toEqual([]);

    // Without the request that broke the commit, the retries with the same keys do the work, once.
    const retried = await Promise.all([
      requests[0]!(),
      t.api('POST', '/tests', { auth: t.apiKey, body: testBody(run.id, t.projectId, { fullTitle: 'c-1' }), headers: idem('g2-1b') }),
      requests[2]!(),
      requests[3]!(),
    ]);
    expect(retried.map((r) => r.status)).toEqual([201, 201, 201, 200]);
    expect(retried.every((r) => r.headers.get('idempotent-replayed') === null)).toBe(true);
    expect(await titlesOf(run.id)).toEqual(['c-0', 'c-1']);
    expect(retried[3]!.body.status).toBe('passed');
  });
});
