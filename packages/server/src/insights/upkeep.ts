import type { Kysely } from 'kysely';
import { chunk, IN_LIST_CHUNK, rowsPerStatement } from '../db/batch.js';
import { writeMany } from '../db/bulk.js';
import { countingResults } from '../runs/attempts.js';
import { bucketOf } from './buckets.js';

/**
 * The insights aggregates (docs/insights.md "Insights", migration 017), kept in step with the results
 * in the transaction that stores or deletes them, so `GET /insights` never reads results:
 * - `insight_case_days`: per project, UTC day of the run, branch and test case, the counts of the
 *   results that count (a re-run CI build's latest attempt only, as the run's own counts);
 * - `insight_case_durations`: the durations of those results that ran, as a log-scale histogram.
 * Writes are increments (`x = x + excluded.x`), so concurrent batches of several servers add up
 * instead of overwriting each other; keys go in one order so they lock rows in one order.
 */

/** Untyped: the migration's backfill runs this code on its `Kysely<any>` too. */
type AnyDb = Kysely<any>;

interface RunOf {
  project_id: string;
  branch: string | null;
  created_at: string;
}

/** One stored result as the aggregates see it. */
export interface ResultRow {
  id: string;
  run_id: string;
  case_id: string;
  run_attempt: number;
  status: string;
  duration: number;
}

interface DayDelta { project_id: string; day: string; branch: string; case_id: string; results: number; passed: number; failed: number; flaky: number; skipped: number; latest_test_id: string }
interface DurationDelta { project_id: string; day: string; branch: string; case_id: string; bucket: number; n: number; total_ms: number }

const DAY_ROWS = rowsPerStatement(10, 500);
const DURATION_ROWS = rowsPerStatement(7, 500);
const byKey = <T>(m: Map<string, T>) => [...m.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, v]) => v);

class Deltas {
  readonly days = new Map<string, DayDelta>();
  readonly durations = new Map<string, DurationDelta>();

  /**
   * Counts `rows` (the results that count, with their effective status) `sign` times. A fresh run's
   * results count with their own status (`effectiveStatus` absent): no copy of each row is made, as
   * a batch's rows carry every column of the result.
   */
  add(run: RunOf, rows: readonly { id: string; case_id: string; status: string; effectiveStatus?: string; duration: number }[], sign: 1 | -1) {
    const day = run.created_at.slice(0, 10);
    const branch = run.branch ?? '';
    for (const r of rows) {
      const k = `${run.project_id}\u0000${day}\u0000${branch}\u0000${r.case_id}`;
      let d = this.days.get(k);
      if (!d) this.days.set(k, (d = { project_id: run.project_id, day, branch, case_id: r.case_id, results: 0, passed: 0, failed: 0, flaky: 0, skipped: 0, latest_test_id: '' }));
      d.results += sign;
      const s = r.effectiveStatus ?? r.status;
      if (s === 'passed' || s === 'failed' || s === 'flaky' || s === 'skipped') d[s] += sign;
      // Only an added result can be the newest; '' never wins the comparison in the upsert.
      if (sign > 0 && r.id > d.latest_test_id) d.latest_test_id = r.id;
      if (s === 'skipped') continue;
      const bucket = bucketOf(r.duration);
      const bk = `${k}\u0000${String(bucket).padStart(4, '0')}`;
      let b = this.durations.get(bk);
      if (!b) this.durations.set(bk, (b = { project_id: run.project_id, day, branch, case_id: r.case_id, bucket, n: 0, total_ms: 0 }));
      b.n += sign;
      b.total_ms += sign * r.duration;
    }
  }

  async apply(db: AnyDb) {
    const days = byKey(this.days).filter((d) => d.results !== 0 || d.latest_test_id !== '');
    const durations = byKey(this.durations).filter((d) => d.n !== 0);
    await writeMany(db, days as unknown as Record<string, unknown>[], (part) =>
      db
        .insertInto('insight_case_days')
        .values(part as unknown as DayDelta[])
        .onConflict((oc) => oc.columns(['project_id', 'day', 'branch', 'case_id']).doUpdateSet((eb) => ({
          results: eb('insight_case_days.results', '+', eb.ref('excluded.results')),
          passed: eb('insight_case_days.passed', '+', eb.ref('excluded.passed')),
          failed: eb('insight_case_days.failed', '+', eb.ref('excluded.failed')),
          flaky: eb('insight_case_days.flaky', '+', eb.ref('excluded.flaky')),
          skipped: eb('insight_case_days.skipped', '+', eb.ref('excluded.skipped')),
          latest_test_id: eb.case().when('excluded.latest_test_id', '>', eb.ref('insight_case_days.latest_test_id')).then(eb.ref('excluded.latest_test_id')).else(eb.ref('insight_case_days.latest_test_id')).end(),
        }))), DAY_ROWS, 'insight_case_days upsert');
    await writeMany(db, durations as unknown as Record<string, unknown>[], (part) =>
      db
        .insertInto('insight_case_durations')
        .values(part as unknown as DurationDelta[])
        .onConflict((oc) => oc.columns(['project_id', 'day', 'branch', 'case_id', 'bucket']).doUpdateSet((eb) => ({
          n: eb('insight_case_durations.n', '+', eb.ref('excluded.n')),
          total_ms: eb('insight_case_durations.total_ms', '+', eb.ref('excluded.total_ms')),
        }))), DURATION_ROWS, 'insight_case_durations upsert');
    // A subtraction can empty a row: it goes, so reads never see zero rows pile up.
    const emptied = [...new Set([...this.days.values()].filter((d) => d.results < 0 || d.latest_test_id === '').map((d) => `${d.project_id}\u0000${d.day}`))];
    for (const pd of emptied) {
      const [project, day] = pd.split('\u0000');
      await db.deleteFrom('insight_case_days').where('project_id', '=', project).where('day', '=', day).where('results', '<=', 0).execute();
      await db.deleteFrom('insight_case_durations').where('project_id', '=', project).where('day', '=', day).where('n', '<=', 0).execute();
    }
  }
}

const counted = (rows: ResultRow[]) => countingResults(rows);

async function runsOf(db: AnyDb, runIds: string[]): Promise<Map<string, RunOf & { current_attempt: number }>> {
  const out = new Map<string, RunOf & { current_attempt: number }>();
  for (const ids of chunk(runIds, IN_LIST_CHUNK)) {
    const rows = await db.selectFrom('runs').select(['id', 'project_id', 'branch', 'created_at', 'current_attempt']).where('id', 'in', ids).execute();
    for (const r of rows) out.set(r.id, r);
  }
  return out;
}

async function resultsOfRuns(db: AnyDb, runIds: string[]): Promise<ResultRow[]> {
  const out: ResultRow[] = [];
  for (const ids of chunk(runIds, IN_LIST_CHUNK)) {
    out.push(...(await db.selectFrom('tests').select(['id', 'run_id', 'case_id', 'run_attempt', 'status', 'duration']).where('run_id', 'in', ids).execute()));
  }
  return out;
}

/** One run's results of these cases only: a re-run's batch reads what it replaces, not the whole run. */
async function resultsOfCases(db: AnyDb, runId: string, caseIds: string[]): Promise<ResultRow[]> {
  const out: ResultRow[] = [];
  for (const ids of chunk(caseIds, IN_LIST_CHUNK)) {
    out.push(...(await db.selectFrom('tests').select(['id', 'run_id', 'case_id', 'run_attempt', 'status', 'duration']).where('run_id', '=', runId).where('case_id', 'in', ids).execute()));
  }
  return out;
}

const groupByRun = (rows: ResultRow[]) => {
  const m = new Map<string, ResultRow[]>();
  for (const r of rows) {
    const list = m.get(r.run_id);
    if (list) list.push(r);
    else m.set(r.run_id, [r]);
  }
  return m;
};

/**
 * Counts a batch of results just stored (in the storing transaction). A run of a re-run CI build
 * counts per case only its latest attempt: the counting results of the cases the batch touched are
 * taken out as they were before and put back as they are now, so an older attempt's results leave
 * the aggregates when a newer attempt's arrive, and a case failed before and passed now reads flaky.
 */
export async function countStoredResults(db: AnyDb, stored: ResultRow[], known?: ReadonlyMap<string, RunOf & { current_attempt: number }>): Promise<void> {
  if (stored.length === 0) return;
  const runs = known ?? (await runsOf(db, [...new Set(stored.map((r) => r.run_id))]));
  const deltas = new Deltas();
  for (const [runId, rows] of groupByRun(stored)) {
    const run = runs.get(runId)!;
    if (run.current_attempt <= 1) {
      deltas.add(run, rows, 1);
      continue;
    }
    const fresh = new Set(rows.map((r) => r.id));
    const now = await resultsOfCases(db, runId, [...new Set(rows.map((r) => r.case_id))]);
    deltas.add(run, counted(now.filter((r) => !fresh.has(r.id))), -1);
    deltas.add(run, counted(now), 1);
  }
  await deltas.apply(db);
}

/** Takes the results of runs about to be deleted out of the aggregates (in the deleting transaction). */
export async function uncountRuns(db: AnyDb, runIds: string[]): Promise<void> {
  if (runIds.length === 0) return;
  const runs = await runsOf(db, runIds);
  const deltas = new Deltas();
  for (const [runId, rows] of groupByRun(await resultsOfRuns(db, runIds))) deltas.add(runs.get(runId)!, counted(rows), -1);
  await deltas.apply(db);
}

/** Counts every stored result from scratch, a few runs at a time (the migration's backfill). */
export async function countAllResults(db: AnyDb, runsPerBatch = 200): Promise<void> {
  let after = '';
  for (;;) {
    const ids = (await db.selectFrom('runs').select('id').where('id', '>', after).orderBy('id').limit(runsPerBatch).execute()).map((r) => r.id as string);
    if (ids.length === 0) break;
    const runs = await runsOf(db, ids);
    const deltas = new Deltas();
    for (const [runId, rows] of groupByRun(await resultsOfRuns(db, ids))) deltas.add(runs.get(runId)!, counted(rows), 1);
    await deltas.apply(db);
    after = ids[ids.length - 1];
  }
}
