import type { Kysely } from 'kysely';
import { chunk, IN_LIST_CHUNK, rowsPerStatement } from '../db/batch.js';
import { writeMany } from '../db/bulk.js';
import { addDays, addDurations } from './upkeep.js';
import { addTo, decodeInto, encode, type Histogram } from './histogram.js';

/**
 * Folding the insights aggregates (docs/insights.md "How insights are kept"). The upkeep adds each
 * batch to `insight_case_days` and `insight_case_durations` (one row per project, day, branch, case
 * and, for durations, bucket: cheap to write, many to read). Folding moves a day's rows of those
 * tables into `insight_rollups` — one row per case and day for every branch together, and one per
 * branch — with the histogram packed in the row, so a 30-day answer reads about cases × days rows
 * instead of cases × days × branches × buckets.
 *
 * The rows are moved (deleted and added in one transaction), so what a read adds up — the rollups
 * plus whatever the upkeep wrote since — counts every result once, whenever a fold happens. A later
 * subtraction of a folded day (a run deleted, a re-run, retention) leaves a negative row in the
 * upkeep's tables until the next fold adds it in. Only folding writes `insight_rollups`, one server
 * at a time (insights/rollupJob.ts), so read-modify-write of a packed histogram is safe.
 */

/** Untyped: the migrations run this code on their `Kysely<any>` too. */
type AnyDb = Kysely<any>;

const COUNTERS = ['results', 'passed', 'failed', 'flaky', 'skipped'] as const;
type Counter = (typeof COUNTERS)[number];

interface RollupRow extends Record<Counter, number> {
  project_id: string;
  all_branches: number;
  branch: string;
  day: string;
  case_id: string;
  latest_test_id: string;
  histogram: Histogram;
}

const ROLLUP_ROWS = rowsPerStatement(12, 200);
const keyOf = (all: number, branch: string, caseId: string) => `${all}\u0000${branch}\u0000${caseId}`;

/**
 * Folds every row the upkeep wrote for (project, day) into the rollups; in the caller's transaction.
 * Returns how many upkeep rows it moved.
 */
export async function foldDay(db: AnyDb, projectId: string, day: string): Promise<number> {
  const days = await db.deleteFrom('insight_case_days').where('project_id', '=', projectId).where('day', '=', day).returningAll().execute();
  const durations = await db.deleteFrom('insight_case_durations').where('project_id', '=', projectId).where('day', '=', day).returningAll().execute();
  if (days.length === 0 && durations.length === 0) return 0;

  const folded = new Map<string, RollupRow>();
  const scopes = (branch: string) => [[0, branch], [1, '']] as const;
  const touch = (all: number, branch: string, caseId: string) => {
    const k = keyOf(all, branch, caseId);
    let r = folded.get(k);
    if (!r) folded.set(k, (r = { project_id: projectId, all_branches: all, branch, day, case_id: caseId, results: 0, passed: 0, failed: 0, flaky: 0, skipped: 0, latest_test_id: '', histogram: new Map() }));
    return r;
  };
  for (const d of days) {
    for (const [all, branch] of scopes(d.branch)) {
      const r = touch(all, branch, d.case_id);
      for (const c of COUNTERS) r[c] += Number(d[c]);
      if (d.latest_test_id > r.latest_test_id) r.latest_test_id = d.latest_test_id;
    }
  }
  for (const d of durations) {
    for (const [all, branch] of scopes(d.branch)) addTo(touch(all, branch, d.case_id).histogram, Number(d.bucket), Number(d.n), Number(d.total_ms));
  }

  // What the rollups already hold for the keys touched: the day's every-branch rows, and the rows of
  // the branches seen (a day of many feature branches has many rows; a fold reads only its own).
  const existing = new Set<string>();
  const merge = (rows: Record<string, any>[]) => {
    for (const e of rows) {
      const r = folded.get(keyOf(Number(e.all_branches), e.branch, e.case_id));
      if (!r) continue;
      existing.add(keyOf(r.all_branches, r.branch, r.case_id));
      for (const c of COUNTERS) r[c] += Number(e[c]);
      if (e.latest_test_id > r.latest_test_id) r.latest_test_id = e.latest_test_id;
      decodeInto(r.histogram, e.histogram);
    }
  };
  const inDay = () => db.selectFrom('insight_rollups').selectAll().where('project_id', '=', projectId).where('day', '=', day);
  merge(await inDay().where('all_branches', '=', 1).execute());
  const branches = [...new Set([...days, ...durations].map((d) => d.branch as string))];
  for (const part of chunk(branches, IN_LIST_CHUNK)) merge(await inDay().where('all_branches', '=', 0).where('branch', 'in', part).execute());

  const keep: Record<string, unknown>[] = [];
  for (const r of folded.values()) {
    const histogram = encode(r.histogram);
    const empty = histogram.length === 0 && COUNTERS.every((c) => r[c] === 0);
    if (empty) {
      if (existing.has(keyOf(r.all_branches, r.branch, r.case_id))) {
        await db.deleteFrom('insight_rollups').where('project_id', '=', projectId).where('all_branches', '=', r.all_branches).where('branch', '=', r.branch).where('day', '=', day).where('case_id', '=', r.case_id).execute();
      }
      continue;
    }
    keep.push({ ...r, histogram });
  }
  keep.sort((a, b) => (keyOf(a.all_branches as number, a.branch as string, a.case_id as string) < keyOf(b.all_branches as number, b.branch as string, b.case_id as string) ? -1 : 1));
  await writeMany(db, keep, (part) =>
    db
      .insertInto('insight_rollups')
      .values(part)
      .onConflict((oc) => oc.columns(['project_id', 'all_branches', 'branch', 'day', 'case_id']).doUpdateSet((eb) => ({
        results: eb.ref('excluded.results'), passed: eb.ref('excluded.passed'), failed: eb.ref('excluded.failed'), flaky: eb.ref('excluded.flaky'),
        skipped: eb.ref('excluded.skipped'), latest_test_id: eb.ref('excluded.latest_test_id'), histogram: eb.ref('excluded.histogram'),
      }))), ROLLUP_ROWS);
  return days.length + durations.length;
}

/** The next day after `after` holding rows of the upkeep's tables for the project, or undefined. */
async function nextDayToFold(db: AnyDb, projectId: string, after: string): Promise<string | undefined> {
  const next = async (table: string) =>
    (await db.selectFrom(table).select('day').where('project_id', '=', projectId).where('day', '>', after).orderBy('day').limit(1).executeTakeFirst())?.day as string | undefined;
  const [a, b] = [await next('insight_case_days'), await next('insight_case_durations')];
  return a === undefined ? b : b === undefined ? a : a < b ? a : b;
}

/**
 * Folds every day of the project that has upkeep rows, oldest first, each day in a transaction of
 * its own (a short hold of SQLite's writer); `between` runs between days, and an aborted `signal`
 * stops there. Returns the upkeep rows moved.
 */
export async function foldProject(db: AnyDb, projectId: string, opts: { between?: () => Promise<void>; signal?: AbortSignal } = {}): Promise<number> {
  let moved = 0;
  for (let day = await nextDayToFold(db, projectId, ''); day !== undefined && !opts.signal?.aborted; day = await nextDayToFold(db, projectId, day)) {
    const d = day;
    moved += await db.transaction().execute((trx) => foldDay(trx, projectId, d));
    await opts.between?.();
  }
  return moved;
}

/**
 * Undoes every fold (migration 022's down): the branch rows go back into the upkeep's tables, added
 * to what is there; the every-branch rows are the same results again and are dropped.
 */
export async function unfoldAll(db: AnyDb): Promise<void> {
  const rows = await db.selectFrom('insight_rollups').selectAll().where('all_branches', '=', 0).execute();
  const days = rows.map((r) => ({ project_id: r.project_id, day: r.day, branch: r.branch, case_id: r.case_id, results: r.results, passed: r.passed, failed: r.failed, flaky: r.flaky, skipped: r.skipped, latest_test_id: r.latest_test_id }));
  const durations = rows.flatMap((r) => {
    const h: Histogram = new Map();
    decodeInto(h, r.histogram);
    return [...h].map(([bucket, e]) => ({ project_id: r.project_id, day: r.day, branch: r.branch, case_id: r.case_id, bucket, n: e.n, total_ms: e.totalMs }));
  });
  await addDays(db, days);
  await addDurations(db, durations);
  await db.deleteFrom('insight_rollups').execute();
}
