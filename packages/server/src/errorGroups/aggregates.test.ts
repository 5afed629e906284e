import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dialectOf } from '../db/database.js';
import * as m019 from '../db/migrations/019_error_group_aggregates.js';
import { startTestServer, type TestServer } from '../testing/harness.js';
import { createRun, postTests, testBody } from '../testing/results.js';
import { createErrorGroupRepo, type OccurrenceFilters } from './repo.js';

/*
 * The error-group aggregates (upkeep.ts) against the known truth: every answer the repository gives
 * from them must equal the answer of scanning the failures themselves, over a history with two runs
 * a day on one branch, a run without branch, a run whose batches straddle midnight, a re-run CI
 * build, and after run deletion and retention (which leaves half a day). A backfill from scratch
 * (migration 019 down and up) must build the very rows the increments and subtractions left.
 */
let t: TestServer;
let clock = new Date('2026-11-01T08:00:00.000Z');
const at = (iso: string) => { clock = new Date(iso); };
const runIds: string[] = [];

interface Planned { at: string; branch: string | null; secondBatchAt?: string; rerunAt?: string }
const PLAN: Planned[] = [
  { at: '2026-11-01T08:00:00.000Z', branch: 'main' },
  { at: '2026-11-01T14:00:00.000Z', branch: 'main' },
  { at: '2026-11-02T08:00:00.000Z', branch: 'feature/a' },
  { at: '2026-11-02T14:00:00.000Z', branch: null },
  { at: '2026-11-03T23:50:00.000Z', branch: 'main', secondBatchAt: '2026-11-04T00:10:00.000Z' },
  { at: '2026-11-04T08:00:00.000Z', branch: 'feature/a' },
  { at: '2026-11-05T08:00:00.000Z', branch: 'main', rerunAt: '2026-11-05T14:00:00.000Z' },
  { at: '2026-11-06T08:00:00.000Z', branch: 'main' },
  { at: '2026-11-06T14:00:00.000Z', branch: 'main' },
];

const fail = (message: string) => ({ status: 'failed', error: { message } });
function batches(runId: string, i: number) {
  const body = (title: string, file: string, over: Record<string, unknown> = {}) => testBody(runId, t.projectId, { title, fullTitle: `${file.slice(6, -8)} > ${title}`, filePath: file, ...over });
  return [
    [
      body('always', 'tests/broken.spec.ts', fail(`Error: nope ${i * 7}`)),
      body('fails', 'tests/half.spec.ts', i % 2 === 0 ? fail(`Error: even ${i}`) : {}),
      body('fine', 'tests/ok.spec.ts'),
    ],
    [
      body('a', 'tests/net.spec.ts', i % 3 === 0 ? fail(`Error: read ECONNRESET 10.0.0.${i}:443`) : {}),
      body('b', 'tests/net.spec.ts', i % 3 !== 1 ? fail(`Error: read ECONNRESET 10.0.1.${i}:443`) : {}),
      body('c', 'tests/net.spec.ts', i % 4 === 1 ? fail(`Timed out ${1000 + i}ms waiting for locator("#x")`) : {}),
      // "d" joins the reset group in run 8 only: deleting that run leaves the group one test fewer.
      body('d', 'tests/net.spec.ts', i === 8 ? fail(`Error: read ECONNRESET 10.0.2.${i}:443`) : {}),
      body('always', 'tests/broken.spec.ts', fail(`Error: nope again ${i}`)),
    ],
  ];
}

beforeAll(async () => {
  t = await startTestServer({ now: () => clock });
  for (const [i, p] of PLAN.entries()) {
    at(p.at);
    const run = await createRun(t, { ...(p.branch ? { branch: p.branch } : {}), commitSha: `c${i}`, ...(p.rerunAt ? { ciBuildId: `b-${i}`, attempt: 1 } : {}) });
    runIds.push(run.id);
    const [first, second] = batches(run.id, i);
    await postTests(t, first);
    if (p.secondBatchAt) at(p.secondBatchAt);
    await postTests(t, second);
    if (p.rerunAt) {
      at(p.rerunAt);
      const rerun = await t.api('POST', '/runs', { auth: t.apiKey, body: { projectId: t.projectId, status: 'running', ...(p.branch ? { branch: p.branch } : {}), ciBuildId: `b-${i}`, attempt: 2 } });
      expect(rerun.status).toBe(200);
      // The re-run fails "always" again, with another message, and "a" for the first time.
      await postTests(t, [...batches(run.id, i + 100)[1]]);
    }
  }
}, 120_000);
afterAll(() => t?.close());

const FILTERS: Omit<OccurrenceFilters, 'projectId'>[] = [
  {},
  { branch: 'main' },
  { branch: 'feature/a' },
  { branch: 'nope' },
  { since: '2026-11-03T00:00:00.000Z' },
  { until: '2026-11-04T00:00:00.000Z' },
  { since: '2026-11-02T00:00:00.000Z', until: '2026-11-05T00:00:00.000Z', branch: 'main' },
  { since: '2026-11-04T00:00:00.000Z', until: '2026-11-04T00:00:00.000Z' },
];

/** Everything the repository answers for one project and filter, as plain data. */
async function answers(via: 'auto' | 'scan', f: OccurrenceFilters) {
  const repo = createErrorGroupRepo(t.server.services.deps.db, via);
  const all = await repo.list(f, 100, 0);
  const fps = all.groups.map((g) => g.fingerprint);
  const detail = [];
  for (const fp of fps) detail.push({ one: await repo.one(f, fp), daily: await repo.daily(f, [fp]), cases: await repo.testCases(f, fp, 200) });
  return {
    all, page: await repo.list(f, 2, 1), detail, daily: await repo.daily(f, fps),
    firstSeen: [...(await repo.firstSeen(f.projectId, fps)).entries()].sort(),
  };
}

async function expectAggregatesEqualScan() {
  let groups = 0;
  for (const filter of FILTERS) {
    const f = { projectId: t.projectId, ...filter };
    const truth = await answers('scan', f);
    expect(await answers('auto', f), JSON.stringify(filter)).toEqual(truth);
    groups += truth.all.total;
  }
  const db = t.server.services.deps.db;
  const empty = await db.selectFrom('error_group_cases').select('fingerprint').where('occurrences', '<=', 0).execute();
  expect([...empty, ...(await db.selectFrom('error_group_runs').select('fingerprint').where('occurrences', '<=', 0).execute())]).toEqual([]);
  return groups;
}

async function tables() {
  const db = t.server.services.deps.db;
  return {
    runs: await db.selectFrom('error_group_runs').selectAll().orderBy('project_id').orderBy('fingerprint').orderBy('run_id').orderBy('day').orderBy('branch').execute(),
    totals: await db.selectFrom('error_group_totals').selectAll().orderBy('project_id').orderBy('branch').orderBy('fingerprint').execute(),
    cases: await db.selectFrom('error_group_cases').selectAll().orderBy('project_id').orderBy('fingerprint').orderBy('case_id').orderBy('day').orderBy('branch').execute(),
  };
}

/** Migration 019 down and up: the backfill from the stored failures. */
async function expectBackfillBuildsTheSame() {
  const kept = await tables();
  const db = t.server.services.deps.db;
  await m019.down(db);
  await m019.up(db, dialectOf(db).columnTypes);
  expect(await tables()).toEqual(kept);
  return kept;
}

describe('error-group aggregates', () => {
  it('answer exactly what scanning the failures answers, after ingestion with a run across midnight and a re-run', async () => {
    expect(await expectAggregatesEqualScan()).toBeGreaterThan(10);
    const all = await answers('auto', { projectId: t.projectId });
    // "always" fails in every run ("nope N" and "nope again N": two groups, one test each).
    const daysOf = (g: { fingerprint: string } | undefined) => all.detail.find((d) => d.one!.fingerprint === g!.fingerprint)!.daily.map((d) => d.date);
    const nope = all.all.groups.find((g) => g.occurrences === PLAN.length && g.runs === PLAN.length);
    const nopeAgain = all.all.groups.find((g) => g.occurrences === PLAN.length + 1 && g.runs === PLAN.length);
    expect([nope?.tests, nopeAgain?.tests]).toEqual([1, 1]);
    // The run across midnight counts each result on its own day: its first batch on Nov 3, its second on Nov 4.
    expect(daysOf(nope)).toEqual(['2026-11-01', '2026-11-02', '2026-11-03', '2026-11-04', '2026-11-05', '2026-11-06']);
    expect(daysOf(nopeAgain)).toEqual(['2026-11-01', '2026-11-02', '2026-11-04', '2026-11-05', '2026-11-06']);
    const { runs, cases } = await expectBackfillBuildsTheSame();
    expect(runs.length).toBeGreaterThan(0);
    expect(cases.length).toBeGreaterThan(0);
  });

  it('stay exact when runs are deleted, the newest occurrence of a case-day included', async () => {
    // Run 8 holds the newest "always" occurrences of Nov 6 on main; run 7 keeps that row alive.
    for (const id of [runIds[8], runIds[4]]) expect((await t.api('DELETE', `/runs/${id}`, { auth: t.owner })).status).toBe(200);
    await expectAggregatesEqualScan();
    await expectBackfillBuildsTheSame();
  });

  it('stay exact when batches of several runs of the same groups arrive at once', async () => {
    at('2026-11-07T08:00:00.000Z');
    const runs = await Promise.all(['main', 'feature/a', 'main', 'feature/b'].map((branch, k) => createRun(t, { branch, commitSha: `p${k}` })));
    runIds.push(...runs.map((r) => r.id));
    // Every batch hits the same groups (and "e", a test new to the reset group) from another run.
    await Promise.all(runs.flatMap((r, k) => [postTests(t, batches(r.id, 200 + k)[1]), postTests(t, [testBody(r.id, t.projectId, { title: 'e', fullTitle: 'net > e', filePath: 'tests/net.spec.ts', ...fail(`Error: read ECONNRESET 10.0.3.${k}:443`) })])]));
    await expectAggregatesEqualScan();
    await expectBackfillBuildsTheSame();
  });

  it('stay exact after retention takes the oldest runs, half of a day included, and are empty when every run is gone', async () => {
    expect((await t.api('PATCH', `/projects/${t.projectId}/settings`, { auth: t.owner, body: { dataRetentionDays: 7 } })).status).toBe(200);
    at('2026-11-09T10:00:00.000Z');
    expect((await t.server.services.retention.sweepOnce()).deletedRuns).toBe(3);
    await expectAggregatesEqualScan();
    await expectBackfillBuildsTheSame();
    at('2026-12-31T00:00:00.000Z');
    expect((await t.server.services.retention.sweepOnce()).deletedRuns).toBe(8);
    expect(await tables()).toEqual({ runs: [], totals: [], cases: [] });
    expect((await t.api('GET', `/errors?projectId=${t.projectId}`, { auth: t.apiKey })).body.total).toBe(0);
  });

  it('stay exact when a deleted run had more failing tests than one IN list holds (600 in one group)', async () => {
    const runs = [];
    for (const [k, day] of ['2026-12-31T01:00:00.000Z', '2026-12-31T02:00:00.000Z'].entries()) {
      at(day);
      const run = await createRun(t, { branch: 'main', commitSha: `wide${k}` });
      runs.push(run.id);
      const wide = Array.from({ length: 600 }, (_, n) => testBody(run.id, t.projectId, { title: `w${n}`, fullTitle: `wide > w${n}`, filePath: 'tests/wide.spec.ts', ...fail(`Error: wide ${n}`) }));
      // Half of the second run's tests pass: deleting the first run must leave 300 tests in the group.
      for (const part of [wide.slice(0, 300), wide.slice(300)]) await postTests(t, k === 1 ? part.map((b, n) => (n % 2 ? { ...b, status: 'passed', error: undefined } : b)) : part);
    }
    // The owner's session of November has expired by now.
    const owner = { ...t.owner, cookie: `testreport_session=${(await t.server.services.sessions.create(t.owner.userId)).token}` };
    expect((await t.api('DELETE', `/runs/${runs[0]}`, { auth: owner })).status).toBe(200);
    await expectAggregatesEqualScan();
    const [group] = (await answers('auto', { projectId: t.projectId })).all.groups;
    expect([group?.runs, group?.tests, group?.occurrences]).toEqual([1, 300, 300]);
    expect((await t.api('DELETE', `/runs/${runs[1]}`, { auth: owner })).status).toBe(200);
    expect(await tables()).toEqual({ runs: [], totals: [], cases: [] });
  });
});
