import { sql, type Kysely } from 'kysely';
import { chunk, IN_LIST_CHUNK } from '../db/batch.js';
import { dialectOf, type Db } from '../db/database.js';
import type { PackedHistogramSql } from '../db/dialect.js';
import { forBulkWork, insertMany } from '../db/bulk.js';
import { countingResults } from '../runs/attempts.js';
import { resultsOfCasesInRun } from '../runs/caseResults.js';
import { bucketOf, bucketSql, nearBucketEdgeSql } from './buckets.js';
import { COUNTERS, emptyCaseDay, type CaseDay, type PackedCaseDay } from './caseDay.js';
import { addTo, encode, NOTHING, packEach } from './histogram.js';
import { addDurations, type DurationDelta } from './staging.js';

/**
 * The insights aggregates (docs/insights.md "Insights"), kept in step with the results in the
 * transaction that stores or deletes them, so `GET /insights` never reads results: per project, UTC
 * day of the run, branch and test case, the counts of the results that count (a re-run CI build's
 * latest attempt only, as the run's own counts) and the durations of those that ran, as a log-scale
 * histogram. A batch appends what it adds (or takes out) to `insight_pending`; insights/rollup.ts
 * folds that into `insight_rollups`, and reads add both. `countAllResults` rebuilds them from every
 * stored result in set-based SQL, staged in migration 017's tables and then folded.
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

/** What a batch adds to the insights, as pending rows (insights/rollup.ts folds them). */
class Deltas {
  readonly parts = new Map<string, CaseDay>();
  readonly #rows: PackedCaseDay[] = [];

  /**
   * Counts the results of a run never re-run, one pending row each: the fold adds up rows of one
   * key anyway (insights/rollup.ts), so a fresh batch, whose results are nearly always one per test
   * case, skips the merging per key that `add` does for a re-run's take-out-and-put-back. On
   * SQLite the database writes these rows itself (`pendingFromStoredTests`).
   */
  addFresh(run: RunOf, rows: readonly { id: string; case_id: string; status: string; duration: number }[]) {
    const day = run.created_at.slice(0, 10);
    const branch = run.branch ?? '';
    const ran = rows.filter((r) => r.status !== 'skipped');
    const packed = packEach(ran.map((r) => r.duration), bucketOf);
    let next = 0;
    for (const r of rows) {
      const s = r.status;
      this.#rows.push({
        project_id: run.project_id, day, branch, case_id: r.case_id, results: 1,
        passed: s === 'passed' ? 1 : 0, failed: s === 'failed' ? 1 : 0, flaky: s === 'flaky' ? 1 : 0, skipped: s === 'skipped' ? 1 : 0,
        latest_test_id: r.id, histogram: s === 'skipped' ? NOTHING : packed[next++],
      });
    }
  }

  /**
   * Counts `rows` (the results that count, with their effective status) `sign` times, merged per
   * (project, day, branch, case): a re-run's batch takes a case's results out and puts them back,
   * which mostly cancels out. Rows without `effectiveStatus` count with their own status.
   */
  add(run: RunOf, rows: readonly { id: string; case_id: string; status: string; effectiveStatus?: string; duration: number }[], sign: 1 | -1) {
    const day = run.created_at.slice(0, 10);
    const branch = run.branch ?? '';
    for (const r of rows) {
      const k = `${run.project_id}\u0000${day}\u0000${branch}\u0000${r.case_id}`;
      let d = this.parts.get(k);
      if (!d) this.parts.set(k, (d = emptyCaseDay(run.project_id, day, branch, r.case_id)));
      d.results += sign;
      const s = r.effectiveStatus ?? r.status;
      if (s === 'passed' || s === 'failed' || s === 'flaky' || s === 'skipped') d[s] += sign;
      // Only an added result can be the newest; '' never wins a comparison.
      if (sign > 0 && r.id > d.latest_test_id) d.latest_test_id = r.id;
      if (s !== 'skipped') addTo(d.histogram, bucketOf(r.duration), sign, sign * r.duration);
    }
  }

  /**
   * Appends the fresh rows and one pending row per (project, day, branch, case) that `add` changed:
   * no key looked up, no row updated, so concurrent batches of several servers never wait for each
   * other here.
   */
  async apply(db: AnyDb) {
    const rows: PackedCaseDay[] = this.#rows;
    for (const d of this.parts.values()) {
      const histogram = encode(d.histogram);
      if (histogram.length === 0 && d.latest_test_id === '' && COUNTERS.every((c) => d[c] === 0)) continue;
      const { project_id, day, branch, case_id, results, passed, failed, flaky, skipped, latest_test_id } = d;
      rows.push({ project_id, day, branch, case_id, results, passed, failed, flaky, skipped, latest_test_id, histogram });
    }
    if (rows.length > 0) await insertMany(db as Db, 'insight_pending', rows);
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
 * The rowid just below the last `n` rows of `tests`: those the batch just stored, in this
 * transaction, one statement after another (SQLite gives each new row the largest rowid plus one,
 * and a group commit's members run one at a time).
 */
async function rowidBelow(db: AnyDb, n: number): Promise<number> {
  const { rows } = await sql<{ hi: number | null }>`select max(rowid) as hi from tests`.execute(db);
  return Number(rows[0]?.hi ?? 0) - n;
}

/**
 * What `Deltas.addFresh` appends for a fresh run's results, written by the database from the rows
 * it has just stored (SQLite, whose functions pack a histogram: `DialectSupport.packedHistograms`):
 * building a pending row per test in JavaScript and binding its eleven values cost more than the
 * row itself (docs/benchmarks.md). `expected` guards the rowid assumption: any other count rolls
 * the batch back rather than miscount it. The unary plus keeps SQLite from answering by the run's
 * index (`tests_run`), which it preferred to the rowid range: it then read every earlier result of
 * the run to find the batch's, 945 µs against 10 µs at the end of a 10,000-result run, paid by every
 * one-test request into it (docs/benchmarks.md).
 */
async function pendingFromStoredTests(db: AnyDb, histograms: PackedHistogramSql, run: RunOf, runId: string, expected: number, below: number): Promise<void> {
  const result = await sql`
    insert into insight_pending (project_id, day, branch, case_id, results, passed, failed, flaky, skipped, latest_test_id, histogram)
    select ${run.project_id}, ${run.created_at.slice(0, 10)}, ${run.branch ?? ''}, case_id, 1, status = 'passed', status = 'failed', status = 'flaky', status = 'skipped', id,
      case when status = 'skipped' then x'' else ${histograms.one(sql.ref('duration'))} end
    from tests where rowid > ${below} and +run_id = ${runId}`.execute(db);
  const n = Number(result.numAffectedRows ?? -1);
  if (n !== expected) throw new Error(`insights upkeep: expected ${expected} results of run ${runId} past rowid ${below}, found ${n}`);
}

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
  const inSql = dialectOf(db).packedHistograms;
  let below: number | undefined;
  for (const [runId, rows] of groupByRun(stored)) {
    const run = runs.get(runId)!;
    if (run.current_attempt <= 1) {
      if (!inSql) deltas.addFresh(run, rows);
      else await pendingFromStoredTests(db, inSql, run, runId, rows.length, (below ??= await rowidBelow(db, stored.length)));
      continue;
    }
    const fresh = new Set(rows.map((r) => r.id));
    // The run's results of these cases only: a re-run's batch reads what it replaces, not the whole run.
    const now: ResultRow[] = await resultsOfCasesInRun(db, runId, [...new Set(rows.map((r) => r.case_id))], ['run_id', 'run_attempt', 'status', 'duration']);
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

/**
 * The results of runs `(after, upTo]` (by id) that count, as the incremental upkeep counts them
 * (`countStoredResults`): every result of a run never re-run; of a re-run CI build's run, per test
 * case only the latest attempt's (`countingResults`), a passed result whose case failed in an
 * earlier attempt reading `flaky`. Keyed by project, UTC day of the run (`created_at`'s first ten
 * characters) and branch ('' for none); `counts` says whether the row counts. Runs never re-run
 * (nearly all) take no window: its sort of every result of the batch was most of the cost.
 */
function countedResultsSql(after: string, upTo: string) {
  const columns = sql`t.id, r.project_id, substr(r.created_at, 1, 10) as day, coalesce(r.branch, '') as branch, t.case_id, t.duration`;
  return sql`
    select ${columns}, t.status, 1 as counts
    from runs r join tests t on t.run_id = r.id
    where r.id > ${after} and r.id <= ${upTo} and r.current_attempt <= 1
    union all
    select ${columns},
      case when t.status = 'passed' and min(case when t.status = 'failed' then t.run_attempt end) over w < t.run_attempt then 'flaky' else t.status end,
      case when t.run_attempt = max(t.run_attempt) over w then 1 else 0 end
    from runs r join tests t on t.run_id = r.id
    where r.id > ${after} and r.id <= ${upTo} and r.current_attempt > 1
    window w as (partition by t.run_id, t.case_id)`;
}

const countOf = (status: string) => sql`sum(case when status = ${sql.lit(status)} then 1 else 0 end)`;

/**
 * Counts the results of runs `(after, upTo]` into the aggregates with a few set-based statements.
 * Rows are added to what earlier batches wrote (a day's runs may fall in several batches). The
 * histogram bucket is computed in SQL except for durations on a bucket edge, where SQL's logarithm
 * may round the other way than `Math.log2`: those few (distinct durations per key) are bucketed by
 * `bucketOf` here, so every row is the one the incremental upkeep writes.
 */
async function countRunRange(db: AnyDb, after: string, upTo: string): Promise<void> {
  const counted = countedResultsSql(after, upTo);
  const d = sql.ref<number>('duration');
  // `where true`: SQLite's parser needs a WHERE before ON CONFLICT in INSERT … SELECT. Rows go in
  // key order: PostgreSQL's hashed groups inserted as they came split index pages at random, and
  // left the tables' indexes ≈ 13 % larger (SQLite's GROUP BY already yields them in that order).
  await sql`
    insert into insight_case_days (project_id, day, branch, case_id, results, passed, failed, flaky, skipped, latest_test_id)
    select project_id, day, branch, case_id, count(*), ${countOf('passed')}, ${countOf('failed')}, ${countOf('flaky')}, ${countOf('skipped')}, max(id)
    from (${counted}) c where counts = 1
    group by project_id, day, branch, case_id
    order by project_id, day, branch, case_id
    on conflict (project_id, day, branch, case_id) do update set
      results = insight_case_days.results + excluded.results, passed = insight_case_days.passed + excluded.passed,
      failed = insight_case_days.failed + excluded.failed, flaky = insight_case_days.flaky + excluded.flaky,
      skipped = insight_case_days.skipped + excluded.skipped,
      latest_test_id = case when excluded.latest_test_id > insight_case_days.latest_test_id then excluded.latest_test_id else insight_case_days.latest_test_id end`.execute(db);
  await sql`
    insert into insight_case_durations (project_id, day, branch, case_id, bucket, n, total_ms)
    select project_id, day, branch, case_id, bucket, count(*), sum(duration)
    from (select c.*, ${bucketSql(db, d)} as bucket from (${counted}) c
      where counts = 1 and status <> 'skipped' and not ${nearBucketEdgeSql(db, d)}) b
    where true
    group by project_id, day, branch, case_id, bucket
    order by project_id, day, branch, case_id, bucket
    on conflict (project_id, day, branch, case_id, bucket) do update set
      n = insight_case_durations.n + excluded.n, total_ms = insight_case_durations.total_ms + excluded.total_ms`.execute(db);
  const { rows: edges } = await sql<{ project_id: string; day: string; branch: string; case_id: string; duration: number; n: number; total_ms: number }>`
    select project_id, day, branch, case_id, duration, count(*) as n, sum(duration) as total_ms
    from (${counted}) c
    where counts = 1 and status <> 'skipped' and ${nearBucketEdgeSql(db, d)}
    group by project_id, day, branch, case_id, duration`.execute(db);
  if (edges.length === 0) return;
  const rows = new Map<string, DurationDelta>();
  for (const e of edges) {
    const bucket = bucketOf(e.duration);
    const k = `${e.project_id}\u0000${e.day}\u0000${e.branch}\u0000${e.case_id}\u0000${String(bucket).padStart(4, '0')}`;
    let b = rows.get(k);
    if (!b) rows.set(k, (b = { project_id: e.project_id, day: e.day, branch: e.branch, case_id: e.case_id, bucket, n: 0, total_ms: 0 }));
    b.n += Number(e.n);
    b.total_ms += Number(e.total_ms);
  }
  await addDurations(db, [...rows].sort(([a], [b]) => (a < b ? -1 : 1)).map(([, b]) => b));
}

/**
 * Counts every stored result from scratch (migration 017's backfill on an existing history, and the
 * bench's generated one), `runsPerBatch` runs at a time in set-based SQL: no result is read into
 * JavaScript, so a history of millions of results takes seconds to minutes, not the quarter of an
 * hour the former row-by-row loop took. Runs go in id order, each batch a few statements. It writes
 * migration 017's tables, which must be empty before: the caller folds them after (insights/rollup.ts
 * `foldProject`) and owns the transaction.
 */
export async function countAllResults(db: AnyDb, runsPerBatch = 2000): Promise<void> {
  await forBulkWork(db);
  let after = '';
  for (;;) {
    const last = await db.selectFrom('runs').select('id').where('id', '>', after).orderBy('id').offset(runsPerBatch - 1).limit(1).executeTakeFirst();
    const upTo: string | undefined = last?.id ?? (await db.selectFrom('runs').select((eb) => eb.fn.max('id').as('id')).where('id', '>', after).executeTakeFirst())?.id ?? undefined;
    if (!upTo) break;
    await countRunRange(db, after, upTo);
    if (!last) break;
    after = upTo;
  }
}
