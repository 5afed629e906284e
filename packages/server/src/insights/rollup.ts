import { sql, type Kysely } from 'kysely';
import { chunk, IN_LIST_CHUNK } from '../db/batch.js';
import { addPacked, addTo, decodeInto, encode, NOTHING, sumConcatenated } from './histogram.js';
import { addCounts, COUNTERS, emptyCaseDay, type CaseDay, type PackedCaseDay } from './caseDay.js';
import { addDays, addDurations } from './staging.js';
import { dialectOf } from '../db/database.js';
import { foldPendingInSql } from './foldInSql.js';
import { BYTEA_CAT } from '../db/migrations/026_insights_lean_pg.js';

/**
 * Folding the insights aggregates (docs/insights.md "How insights are kept"). The upkeep appends
 * what each batch adds to `insight_pending` (cheap to write: a row per result of a fresh run, per
 * case and batch of a re-run); the set-based rebuild writes migration 017's `insight_case_days` and
 * `insight_case_durations`.
 * Folding moves those rows into `insight_rollups` — one row per case and day for every branch
 * together, and one per branch — with the histogram packed in the row, so a 30-day answer reads
 * about cases × days rows, not one per batch, branch or bucket.
 *
 * Rows are moved (deleted and added in one transaction), so what a read adds up — the rollups plus
 * whatever is pending — counts every result once, whenever a fold happens. Taking results out of a
 * folded day (a run deleted, a re-run, retention) appends rows below zero, which the next fold adds
 * in. Only folding writes `insight_rollups`, one server at a time (insights/rollupJob.ts), so the
 * read-modify-write of a packed histogram is safe.
 */

/** Untyped: the migrations run this code on their `Kysely<any>` too. */
type AnyDb = Kysely<any>;

/** The rollup row's columns with their PostgreSQL types, in the order `addToRollups` builds its rows. */
const ROLLUP_COLUMN_TYPES = {
  project_id: 'text', all_branches: 'integer', branch: 'text', day: 'text', case_id: 'text', results: 'integer', passed: 'integer',
  failed: 'integer', flaky: 'integer', skipped: 'integer', latest_test_id: 'text', histogram: 'bytea',
} as const;
/**
 * Pending rows one fold moves at most: bounds its transaction (it holds the writer) and its memory.
 * A fold rewrites the rollup row of every case it meets, however many batches of that case it
 * folds, so larger folds cost less per result: 50,000 rather than 20,000 took sustained batch
 * ingestion from ≈ 4,300 to ≈ 4,800 tests/s, folds included (docs/benchmarks.md).
 */
export const PENDING_PER_FOLD = 50_000;
const keyOf = (all: number, branch: string, caseId: string) => `${all}\u0000${branch}\u0000${caseId}`;
const inTransaction = <T>(db: AnyDb, work: (trx: AnyDb) => Promise<T>): Promise<T> => (db.isTransaction ? work(db) : db.transaction().execute(work));

/** Adds the counts and the packed histogram of `from` to `into`. */
function addPackedPart(into: PackedCaseDay, from: Record<string, any>): void {
  addCounts(into, from);
  into.histogram = addPacked(into.histogram, from.histogram);
}

const emptyPacked = (project_id: string, day: string, branch: string, case_id: string): PackedCaseDay => ({
  project_id, day, branch, case_id, results: 0, passed: 0, failed: 0, flaky: 0, skipped: 0, latest_test_id: '', histogram: NOTHING,
});

const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
const byBranchAndCase = (a: PackedCaseDay, b: PackedCaseDay) => compare(a.branch, b.branch) || compare(a.case_id, b.case_id);
const byCase = (a: PackedCaseDay, b: PackedCaseDay) => compare(a.case_id, b.case_id);
/** `rows` if already in `order` (one pass), else a sorted copy. */
function inOrder<T>(rows: readonly T[], order: (a: T, b: T) => number): readonly T[] {
  for (let i = 1; i < rows.length; i++) if (order(rows[i - 1]!, rows[i]!) > 0) return [...rows].sort(order);
  return rows;
}

/**
 * Adds `parts` (all of one project and day) to the rollups: to the every-branch row of each case
 * and to its branch's row. Rows that come to zero everywhere are deleted. In the caller's transaction.
 * Histograms stay packed throughout (`addPacked`): decoding each into a Map and encoding it back was
 * most of this fold's garbage on PostgreSQL.
 */
async function addToRollups(db: AnyDb, projectId: string, day: string, parts: readonly PackedCaseDay[]): Promise<void> {
  type Rollup = PackedCaseDay & { all_branches: number };
  // Filled in key order (the branch rows by branch and case, then the every-branch rows by case), so
  // rows are written in the primary key's order without sorting 2 keys per part as strings; parts
  // nearly always come in that order already (PostgreSQL's fold asks for it).
  const folded = new Map<string, Rollup>();
  const into = (all: number, branch: string, p: PackedCaseDay) => {
    const k = keyOf(all, branch, p.case_id);
    let r = folded.get(k);
    if (!r) {
      const { case_id, results, passed, failed, flaky, skipped, latest_test_id, histogram } = p;
      folded.set(k, { project_id: projectId, day, branch, case_id, results, passed, failed, flaky, skipped, latest_test_id, histogram, all_branches: all });
    } else addPackedPart(r, p);
  };
  const byBranch = inOrder(parts, byBranchAndCase);
  for (const p of byBranch) into(0, p.branch, p);
  for (const p of inOrder(byBranch, byCase)) into(1, '', p);
  // What the rollups already hold for those keys, looked up by key (the primary key's range for the
  // scope, branch and day, then the cases): a fold of a few batches reads their cases' rows only, not
  // every row of the day, which under steady ingestion was most of a fold's cost (docs/insights.md).
  const existing = new Set<string>();
  const scopes = new Map<string, { all: number; branch: string; cases: string[] }>();
  for (const r of folded.values()) {
    const s = `${r.all_branches}\u0000${r.branch}`;
    let scope = scopes.get(s);
    if (!scope) scopes.set(s, (scope = { all: r.all_branches, branch: r.branch, cases: [] }));
    scope.cases.push(r.case_id);
  }
  const lateral = dialectOf(db).lateralOverArrays;
  for (const { all, branch, cases } of scopes.values()) {
    // A scope's first fold of the day (every fresh day, a history's first runs) finds nothing: one
    // probe says so, instead of a probe per case (docs/benchmarks.md).
    const some = await db.selectFrom('insight_rollups').select('case_id').where('project_id', '=', projectId).where('all_branches', '=', all)
      .where('branch', '=', branch).where('day', '=', day).limit(1).executeTakeFirst();
    if (!some) continue;
    for (const part of chunk(cases, IN_LIST_CHUNK)) {
      const rows = lateral
        ? // PostgreSQL: one probe of the primary key per case. With `case_id in (…)` and no statistics
          // of the day yet (every new day), the planner expected one row for the scope and day and
          // filtered the cases while walking all of them: 50,000 rows for 500 cases, 33–65 ms per
          // chunk, 60 s of one bigrun bench. `limit 1` keeps each probe a subquery of its own.
          (await sql<Record<string, any>>`select r.* from unnest(cast(${part} as text[])) as c(id) cross join lateral (
              select * from insight_rollups where project_id = ${projectId} and all_branches = ${all} and branch = ${branch} and day = ${day} and case_id = c.id limit 1) r`.execute(db)).rows
        : await db
            .selectFrom('insight_rollups')
            .selectAll()
            .where('project_id', '=', projectId)
            .where('all_branches', '=', all)
            .where('branch', '=', branch)
            .where('day', '=', day)
            .where('case_id', 'in', part)
            .execute();
      for (const e of rows) {
        const k = keyOf(all, branch, e.case_id);
        existing.add(k);
        addPackedPart(folded.get(k)!, e);
      }
    }
  }

  // New rows (a case's first fold of the day) and rows that hold results already, apart: only the
  // fold writes rollups, one server at a time, so the rows looked up above are all there are.
  const fresh: Record<string, unknown>[] = [];
  const changed: Record<string, unknown>[] = [];
  for (const [k, r] of folded) {
    if (r.histogram.length > 0 || COUNTERS.some((c) => r[c] !== 0)) {
      const { project_id, all_branches, branch, case_id, results, passed, failed, flaky, skipped, latest_test_id, histogram } = r;
      (existing.has(k) ? changed : fresh).push({ project_id, all_branches, branch, day, case_id, results, passed, failed, flaky, skipped, latest_test_id, histogram });
    } else if (existing.has(k)) {
      await db.deleteFrom('insight_rollups').where('project_id', '=', projectId).where('all_branches', '=', r.all_branches).where('branch', '=', r.branch).where('day', '=', day).where('case_id', '=', r.case_id).execute();
    }
  }
  // New rows by COPY on PostgreSQL: an INSERT … ON CONFLICT checks for a conflict and inserts
  // speculatively, which took PostgreSQL 12 µs per new row (docs/benchmarks.md).
  await dialectOf(db).insertMany(db, 'insight_rollups', fresh);
  // The rest as one array per column on PostgreSQL: Kysely building and pg binding 12 parameters
  // per row was about a fifth of the fold's CPU in the server (docs/benchmarks.md).
  await dialectOf(db).upsertMany(db, 'insight_rollups', changed, ROLLUP_COLUMN_TYPES, (insert) =>
    insert.onConflict((oc) => oc.columns(['project_id', 'all_branches', 'branch', 'day', 'case_id']).doUpdateSet((eb) => ({
      results: eb.ref('excluded.results'), passed: eb.ref('excluded.passed'), failed: eb.ref('excluded.failed'), flaky: eb.ref('excluded.flaky'),
      skipped: eb.ref('excluded.skipped'), latest_test_id: eb.ref('excluded.latest_test_id'), histogram: eb.ref('excluded.histogram'),
    }))), 'insight rollups upsert');
}

/**
 * Folds up to `PENDING_PER_FOLD` of the oldest pending rows, in one transaction: in set-based SQL
 * where the database adds packed histograms up (insights/foldInSql.ts), else here. Returns how
 * many it moved (0: nothing was pending).
 */
export async function foldPending(db: AnyDb): Promise<number> {
  const inSql = dialectOf(db).packedHistograms;
  if (inSql) return inTransaction(db, (trx) => foldPendingInSql(trx, inSql, PENDING_PER_FOLD));
  // PostgreSQL: one snapshot for the whole fold, so the rows deleted below are exactly the rows read
  // (a batch's row with a smaller id may commit in between). `DELETE … RETURNING` in a CTE did that
  // in READ COMMITTED, but materialising every deleted row took PostgreSQL 157 ms for 40,000 rows,
  // against 40 + 17 ms for the two statements (docs/benchmarks.md). Only the fold deletes pending
  // rows besides a project's deletion, whose race with a fold fails the fold for the next pass.
  // Opens its own transaction: both callers pass the database.
  return db.transaction().setIsolationLevel('repeatable read').execute(async (trx) => {
    const upToLast = await boundOfFold(trx);
    // One part per (project, day, branch, case), however many batches appended rows for it: the
    // rest of the fold then costs per case met, not per pending row. The database sums the counts
    // and hands each part's histograms over end to end in one value: reading every pending row into
    // an object (40,000 for four runs of a 10,000-test suite, against 10,000 parts) was about a third
    // of the fold's CPU in the server. PostgreSQL only (migration 026's aggregate, half the cost of
    // `string_agg` here): SQLite folds in SQL (foldInSql.ts).
    const { rows } = await sql<Record<string, any> & { histograms: Buffer; n: number }>`
      select project_id, day, branch, case_id, ${sql.raw(COUNTERS.map((c) => `sum(${c}) as ${c}`).join(', '))},
        max(latest_test_id collate "C") as latest_test_id, ${sql.ref(BYTEA_CAT)}(histogram) as histograms, count(*) as n
      from insight_pending ${upToLast} group by project_id, day, branch, case_id
      order by project_id, day, branch collate "C", case_id collate "C"`.execute(trx);
    await sql`delete from insight_pending ${upToLast}`.execute(trx);
    const byDay = new Map<string, PackedCaseDay[]>();
    let moved = 0;
    for (const r of rows) {
      const pd = `${r.project_id}\u0000${r.day}`;
      let parts = byDay.get(pd);
      if (!parts) byDay.set(pd, (parts = []));
      const part = emptyPacked(r.project_id, r.day, r.branch, r.case_id);
      addCounts(part, r);
      part.histogram = sumConcatenated(r.histograms);
      parts.push(part);
      moved += Number(r.n);
    }
    for (const [pd, parts] of [...byDay].sort(([a], [b]) => (a < b ? -1 : 1))) {
      const [projectId, day] = pd.split('\u0000') as [string, string];
      await addToRollups(trx, projectId, day, parts);
    }
    return moved;
  });
}

/**
 * The condition on `insight_pending` that keeps one fold to `PENDING_PER_FOLD` rows, oldest first,
 * or none when fewer are visible. Ids are handed out in order, so when the lowest and highest are
 * closer than that, every visible row fits: two probes of the index's ends, instead of walking
 * `PENDING_PER_FOLD` entries to the offset (9–19 ms of PostgreSQL for 40,000 fresh rows, each
 * checked against the table).
 */
async function boundOfFold(trx: AnyDb) {
  const ends = await trx.selectFrom('insight_pending').select((eb) => [eb.fn.min<string>('id').as('lo'), eb.fn.max<string>('id').as('hi')]).executeTakeFirst();
  if (ends?.lo == null || Number(ends.hi) - Number(ends.lo) < PENDING_PER_FOLD) return sql``;
  const last = await trx.selectFrom('insight_pending').select('id').orderBy('id').offset(PENDING_PER_FOLD - 1).limit(1).executeTakeFirst();
  return last ? sql`where id <= ${last.id}` : sql``;
}

/** Folds what the rebuild staged for (project, day) in migration 017's tables; in the caller's transaction. */
async function foldStagedDay(db: AnyDb, projectId: string, day: string): Promise<number> {
  const days = await db.deleteFrom('insight_case_days').where('project_id', '=', projectId).where('day', '=', day).returningAll().execute();
  const durations = await db.deleteFrom('insight_case_durations').where('project_id', '=', projectId).where('day', '=', day).returningAll().execute();
  const parts = new Map<string, CaseDay>();
  const part = (r: Record<string, any>) => {
    const k = `${r.branch}\u0000${r.case_id}`;
    let p = parts.get(k);
    if (!p) parts.set(k, (p = emptyCaseDay(projectId, day, r.branch, r.case_id)));
    return p;
  };
  for (const d of days) addCounts(part(d), d);
  for (const d of durations) addTo(part(d).histogram, Number(d.bucket), Number(d.n), Number(d.total_ms));
  await addToRollups(db, projectId, day, [...parts.values()].map((p) => ({ ...p, histogram: encode(p.histogram) })));
  return days.length + durations.length;
}

/** The next day after `after` holding rows of migration 017's tables for the project, or undefined. */
async function nextStagedDay(db: AnyDb, projectId: string, after: string): Promise<string | undefined> {
  const next = async (table: string) =>
    (await db.selectFrom(table).select('day').where('project_id', '=', projectId).where('day', '>', after).orderBy('day').limit(1).executeTakeFirst())?.day as string | undefined;
  const [a, b] = [await next('insight_case_days'), await next('insight_case_durations')];
  return a === undefined ? b : b === undefined ? a : a < b ? a : b;
}

/**
 * Folds what the set-based rebuild staged for the project (migration 017's tables), oldest day
 * first, each day in a transaction of its own (a short hold of SQLite's writer) unless the caller
 * holds one; `between` runs between days, and an aborted `signal` stops there. Returns the rows moved.
 */
export async function foldProject(db: AnyDb, projectId: string, opts: { between?: () => Promise<void>; signal?: AbortSignal } = {}): Promise<number> {
  let moved = 0;
  for (let day = await nextStagedDay(db, projectId, ''); day !== undefined && !opts.signal?.aborted; day = await nextStagedDay(db, projectId, day)) {
    const d = day;
    moved += await inTransaction(db, (trx) => foldStagedDay(trx, projectId, d));
    await opts.between?.();
  }
  return moved;
}

/**
 * Undoes every fold (migration 022's down): the pending rows and the branch rows of the rollups go
 * into migration 017's tables, added to what is there; the every-branch rows are the same results
 * again and are dropped.
 */
export async function unfoldAll(db: AnyDb): Promise<void> {
  const rows = [
    ...(await db.selectFrom('insight_rollups').selectAll().where('all_branches', '=', 0).execute()),
    ...(await db.selectFrom('insight_pending').selectAll().execute()),
  ];
  const days = new Map<string, CaseDay>();
  for (const r of rows) {
    const k = [r.project_id, r.day, r.branch, r.case_id].join('\u0000');
    let d = days.get(k);
    if (!d) days.set(k, (d = emptyCaseDay(r.project_id, r.day, r.branch, r.case_id)));
    addCounts(d, r);
    decodeInto(d.histogram, r.histogram);
  }
  const sorted = [...days].sort(([a], [b]) => (a < b ? -1 : 1)).map(([, d]) => d);
  await addDays(db, sorted.map(({ histogram: _, ...counts }) => counts));
  await addDurations(db, sorted.flatMap((d) => [...d.histogram].sort(([a], [b]) => a - b).map(([bucket, e]) => ({ project_id: d.project_id, day: d.day, branch: d.branch, case_id: d.case_id, bucket, n: e.n, total_ms: e.totalMs }))));
  await db.deleteFrom('insight_rollups').execute();
  await db.deleteFrom('insight_pending').execute();
}
