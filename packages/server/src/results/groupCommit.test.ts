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

  it('concurrent one-test requests of several callers are stored jointly, each answered with its own result', async () => {
    const run = await createRun(t);
    const other = await t.createOtherTenant();
    const otherRun = await createRun(t, { projectId: other.projectId }, other.apiKey);
    const burst = [
      { auth: t.apiKey, body: testBody(run.id, t.projectId, { fullTitle: 'j-0', duration: 10 }), headers: idem('g3-0') },
      { auth: other.apiKey, body: testBody(otherRun.id, other.projectId, { fullTitle: 'j-other', duration: 20 }), headers: idem('g3-1') },
      { auth: t.apiKey, body: testBody(run.id, t.projectId, { fullTitle: 'j-2', duration: 30 }), headers: idem('g3-2') },
      // The same key twice in one burst (a retry racing its first try): stored once, then replayed.
      { auth: t.apiKey, body: testBody(run.id, t.projectId, { fullTitle: 'j-3', duration: 40 }), headers: idem('g3-3') },
      { auth: t.apiKey, body: testBody(run.id, t.projectId, { fullTitle: 'j-3', duration: 40 }), headers: idem('g3-3') },
      { auth: t.apiKey, body: testBody(run.id, t.projectId, { fullTitle: 'j-5', duration: 50 }) },
    ];
    const answers = await Promise.all(burst.map((r) => t.api('POST', '/tests', r)));
    expect(answers.map((r) => r.status)).toEqual([201, 201, 201, 201, 201, 201]);
    expect(answers.map((r) => r.body.fullTitle)).toEqual(['j-0', 'j-other', 'j-2', 'j-3', 'j-3', 'j-5']);
    expect(answers.map((r) => r.body.duration)).toEqual([10, 20, 30, 40, 40, 50]);
    expect(answers[4]!.body).toEqual(answers[3]!.body);
    expect([answers[3], answers[4]].filter((r) => r!.headers.get('idempotent-replayed') === 'true')).toHaveLength(1);
    // Each answer is the row stored for it, in its own caller's run and project.
    const rows = await db().selectFrom('tests').select(['id', 'full_title', 'run_id', 'project_id']).where('run_id', 'in', [run.id, otherRun.id]).orderBy('full_title').execute();
    expect(rows.map((r) => r.full_title)).toEqual(['j-0', 'j-2', 'j-3', 'j-5', 'j-other']);
    for (const a of answers) {
      const row = rows.find((r) => r.id === a.body.id)!;
      expect(row.full_title).toBe(a.body.fullTitle);
    }
    expect(rows.find((r) => r.full_title === 'j-other')).toMatchObject({ run_id: otherRun.id, project_id: other.projectId });
    const counts = (await t.api('GET', `/tests?projectId=${t.projectId}&runId=${run.id}`, { auth: t.apiKey })).body;
    expect(counts.data.map((x: { fullTitle: string }) => x.fullTitle).sort()).toEqual(['j-0', 'j-2', 'j-3', 'j-5']);
  });

  it('a request refused in a joint burst (another project) gets its own 403; the rest of the burst is stored', async () => {
    const run = await createRun(t);
    const other = await t.createOtherTenant();
    const burst = [
      { auth: t.apiKey, body: testBody(run.id, t.projectId, { fullTitle: 'r-0' }) },
      // A key of another tenant writing into this project's run.
      { auth: other.apiKey, body: testBody(run.id, t.projectId, { fullTitle: 'r-intruder' }) },
      { auth: t.apiKey, body: testBody(run.id, t.projectId, { fullTitle: 'r-2' }) },
    ];
    const answers = await Promise.all(burst.map((r) => t.api('POST', '/tests', r)));
    expect(answers.map((r) => r.status)).toEqual([201, 403, 201]);
    expect(await titlesOf(run.id)).toEqual(['r-0', 'r-2']);
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
