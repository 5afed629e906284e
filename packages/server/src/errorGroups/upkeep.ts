import { sql, type Kysely } from 'kysely';
import { chunk, IN_LIST_CHUNK, rowsPerStatement } from '../db/batch.js';
import { writeTogether } from '../db/bulk.js';
import type { TogetherWrite } from '../db/dialect.js';
import { ERROR_AGGREGATES_BACKFILL } from './backfill.js';

/**
 * The error-group aggregates (docs/insights.md "Error groups", migration 019), kept in step with the
 * failures in the transaction that stores or deletes them, so `GET /errors` and run summaries
 * never scan the failures themselves. Only results with an error fingerprint touch them.
 * - `error_group_runs`: per project, fingerprint, run, UTC day of the result and branch ('' for
 *   none): occurrences and the first and last occurrence (ids are time-ordered). Distinct runs are
 *   the distinct `run_id`s of the rows matching the filters; a run's rows go with it (FK cascade),
 *   and never change otherwise, so first and last never need recomputing.
 * - `error_group_cases`: per project, fingerprint, test case, day and branch: occurrences and the
 *   case's newest occurrence. Distinct tests and the detail's test cases come from here.
 * - `error_group_totals`: per project, scope and fingerprint, what `GET /errors` lists: occurrences,
 *   distinct runs and tests, first and last occurrence. Scope '' is every branch, a branch's name
 *   that branch (results without a branch count in '' only). The unfiltered and the branch lists
 *   read one row per group from here, however many occurrences the group has.
 * Writes are increments (`x = x + excluded.x`) in one key order, as insights/upkeep.ts does, so
 * concurrent batches of several servers add up and lock rows in one order. Distinct runs and tests
 * are not additive: a batch first increments (and so locks) its groups' totals rows, then looks up
 * which of its (group, run) and (group, case) pairs the tables already hold; a concurrent writer of
 * the same group waits for the lock, and on PostgreSQL (READ COMMITTED: each statement a fresh
 * snapshot) then sees the first one's rows. SQLite has one writer at a time anyway.
 */

/** Untyped: the migration runs the backfill on its `Kysely<any>` too. */
type AnyDb = Kysely<any>;

/** A stored result as the aggregates see it (a results/service.ts TestRow has these columns). */
export interface FailureRow {
  id: string;
  project_id: string;
  run_id: string;
  case_id: string;
  branch: string | null;
  created_at: string;
  error_fingerprint: string | null;
}

interface RunDelta { project_id: string; fingerprint: string; run_id: string; day: string; branch: string; occurrences: number; first_id: string; last_id: string }
interface CaseDelta { project_id: string; fingerprint: string; case_id: string; day: string; branch: string; occurrences: number; last_id: string }

interface TotalDelta { project_id: string; branch: string; fingerprint: string; occurrences: number; runs: number; tests: number; first_id: string; last_id: string }

const TOTAL_ROWS = rowsPerStatement(8, 500);
const RUN_ROWS = rowsPerStatement(8, 500);
const CASE_ROWS = rowsPerStatement(7, 500);
const SEP = '\u0000';
const byKey = <T>(m: Map<string, T>) => [...m.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, v]) => v);
const dayOf = (createdAt: string) => createdAt.slice(0, 10);

function caseDeltas(failures: FailureRow[], sign: 1 | -1): Map<string, CaseDelta> {
  const out = new Map<string, CaseDelta>();
  for (const r of failures) {
    const day = dayOf(r.created_at);
    const branch = r.branch ?? '';
    const k = [r.project_id, r.error_fingerprint, r.case_id, day, branch].join(SEP);
    let d = out.get(k);
    // A subtraction's last_id is '': it never wins the comparison in the upsert.
    if (!d) out.set(k, (d = { project_id: r.project_id, fingerprint: r.error_fingerprint!, case_id: r.case_id, day, branch, occurrences: 0, last_id: '' }));
    d.occurrences += sign;
    if (sign > 0 && r.id > d.last_id) d.last_id = r.id;
  }
  return out;
}

/** The upsert of `error_group_cases` rows (increments), as `writeMany`'s arguments. */
const casesWrite = (db: AnyDb, deltas: CaseDelta[]): TogetherWrite => ({
  rows: deltas as unknown as Record<string, unknown>[],
  build: (part) =>
    db
      .insertInto('error_group_cases')
      .values(part as unknown as CaseDelta[])
      .onConflict((oc) => oc.columns(['project_id', 'fingerprint', 'case_id', 'day', 'branch']).doUpdateSet((eb) => ({
        occurrences: eb('error_group_cases.occurrences', '+', eb.ref('excluded.occurrences')),
        last_id: eb.case().when('excluded.last_id', '>', eb.ref('error_group_cases.last_id')).then(eb.ref('excluded.last_id')).else(eb.ref('error_group_cases.last_id')).end(),
      }))),
  rowsPerStatement: CASE_ROWS,
  shape: 'error_group_cases upsert',
});

/** The totals' scopes a result counts in: every branch (''), and its own when it has one. */
const scopesOf = (branch: string | null) => (branch ? ['', branch] : ['']);

/** The upsert of `error_group_totals` rows (increments), as `writeMany`'s arguments. */
const totalsWrite = (db: AnyDb, deltas: TotalDelta[]): TogetherWrite => ({
  rows: deltas as unknown as Record<string, unknown>[],
  build: (part) =>
    db
      .insertInto('error_group_totals')
      .values(part as unknown as TotalDelta[])
      .onConflict((oc) => oc.columns(['project_id', 'branch', 'fingerprint']).doUpdateSet((eb) => ({
        occurrences: eb('error_group_totals.occurrences', '+', eb.ref('excluded.occurrences')),
        runs: eb('error_group_totals.runs', '+', eb.ref('excluded.runs')),
        tests: eb('error_group_totals.tests', '+', eb.ref('excluded.tests')),
        first_id: eb.case().when('excluded.first_id', '<', eb.ref('error_group_totals.first_id')).then(eb.ref('excluded.first_id')).else(eb.ref('error_group_totals.first_id')).end(),
        last_id: eb.case().when('excluded.last_id', '>', eb.ref('error_group_totals.last_id')).then(eb.ref('excluded.last_id')).else(eb.ref('error_group_totals.last_id')).end(),
      }))),
  rowsPerStatement: TOTAL_ROWS,
  shape: 'error_group_totals upsert',
});

/** (scope, fingerprint, run or case) pairs as keys: `scope\0fingerprint\0id`. */
const pair = (scope: string, fp: string, id: string) => `${scope}${SEP}${fp}${SEP}${id}`;

/** Which (group, run) or (group, case) pairs to look up: the table, its id column, and the ids. */
interface PairLookup { table: 'error_group_runs' | 'error_group_cases'; column: 'run_id' | 'case_id'; ids: string[] }
/** `IN` lists per statement: each part has two of at most IN_LIST_CHUNK ids, far below either dialect's parameter limit. */
const PARTS_PER_STATEMENT = 4;

/**
 * The pairs of `project` these tables already hold, for the fingerprints and each lookup's ids: one
 * set per lookup. A batch's lookups go in one statement (`UNION ALL`), a round trip fewer on PostgreSQL.
 */
async function existingPairs(db: AnyDb, projectId: string, fps: string[], lookups: PairLookup[]): Promise<Set<string>[]> {
  const out = lookups.map(() => new Set<string>());
  const parts = [];
  for (const fpPart of chunk(fps, IN_LIST_CHUNK)) {
    for (const [k, l] of lookups.entries()) {
      for (const idPart of chunk(l.ids, IN_LIST_CHUNK)) {
        parts.push(db.selectFrom(l.table).select([sql.lit(k).as('k'), 'fingerprint', `${l.column} as id`, 'branch']).distinct()
          .where('project_id', '=', projectId).where('fingerprint', 'in', fpPart).where(l.column, 'in', idPart));
      }
    }
  }
  for (const group of chunk(parts, PARTS_PER_STATEMENT)) {
    const rows = await group.slice(1).reduce((q, part) => q.unionAll(part), group[0]!).execute();
    for (const r of rows) for (const scope of scopesOf(r.branch)) out[Number(r.k)]!.add(pair(scope, r.fingerprint, r.id));
  }
  return out;
}

const groupByProject = <T extends { project_id: string }>(rows: T[]) => {
  const m = new Map<string, T[]>();
  for (const r of rows) m.set(r.project_id, [...(m.get(r.project_id) ?? []), r]);
  return m;
};

/** The upsert of `error_group_runs` rows (increments), as `writeMany`'s arguments. */
const runsWrite = (db: AnyDb, runs: Map<string, RunDelta>): TogetherWrite => ({
  rows: byKey(runs) as unknown as Record<string, unknown>[],
  build: (part) =>
    db
      .insertInto('error_group_runs')
      .values(part as unknown as RunDelta[])
      .onConflict((oc) => oc.columns(['project_id', 'fingerprint', 'run_id', 'day', 'branch']).doUpdateSet((eb) => ({
        occurrences: eb('error_group_runs.occurrences', '+', eb.ref('excluded.occurrences')),
        first_id: eb.case().when('excluded.first_id', '<', eb.ref('error_group_runs.first_id')).then(eb.ref('excluded.first_id')).else(eb.ref('error_group_runs.first_id')).end(),
        last_id: eb.case().when('excluded.last_id', '>', eb.ref('error_group_runs.last_id')).then(eb.ref('excluded.last_id')).else(eb.ref('error_group_runs.last_id')).end(),
      }))),
  rowsPerStatement: RUN_ROWS,
  shape: 'error_group_runs upsert',
});

/** Counts the failures of a batch just stored (in the storing transaction); other results cost a filter. */
export async function countStoredFailures(db: AnyDb, stored: FailureRow[]): Promise<void> {
  const failures = stored.filter((r) => r.error_fingerprint !== null);
  if (failures.length === 0) return;
  const runs = new Map<string, RunDelta>();
  for (const r of failures) {
    const day = dayOf(r.created_at);
    const branch = r.branch ?? '';
    const k = [r.project_id, r.error_fingerprint, r.run_id, day, branch].join(SEP);
    const d = runs.get(k);
    if (!d) runs.set(k, { project_id: r.project_id, fingerprint: r.error_fingerprint!, run_id: r.run_id, day, branch, occurrences: 1, first_id: r.id, last_id: r.id });
    else {
      d.occurrences++;
      if (r.id < d.first_id) d.first_id = r.id;
      if (r.id > d.last_id) d.last_id = r.id;
    }
  }
  const totals = new Map<string, TotalDelta>();
  for (const r of failures) {
    for (const scope of scopesOf(r.branch)) {
      const k = [r.project_id, scope, r.error_fingerprint].join(SEP);
      const d = totals.get(k);
      if (!d) totals.set(k, { project_id: r.project_id, branch: scope, fingerprint: r.error_fingerprint!, occurrences: 1, runs: 0, tests: 0, first_id: r.id, last_id: r.id });
      else {
        d.occurrences++;
        if (r.id < d.first_id) d.first_id = r.id;
        if (r.id > d.last_id) d.last_id = r.id;
      }
    }
  }
  // First the totals (their row locks order concurrent writers of a group), then which pairs are new.
  await writeTogether(db, [totalsWrite(db, byKey(totals))]);
  const fresh = new Map<string, TotalDelta>();
  const countNew = (r: FailureRow, scope: string, what: 'runs' | 'tests') => {
    const k = [r.project_id, scope, r.error_fingerprint].join(SEP);
    let d = fresh.get(k);
    if (!d) fresh.set(k, (d = { ...totals.get(k)!, occurrences: 0, runs: 0, tests: 0 }));
    d[what]++;
  };
  for (const [projectId, rows] of groupByProject(failures)) {
    const fps = [...new Set(rows.map((r) => r.error_fingerprint!))];
    const [oldRuns, oldCases] = await existingPairs(db, projectId, fps, [
      { table: 'error_group_runs', column: 'run_id', ids: [...new Set(rows.map((r) => r.run_id))] },
      { table: 'error_group_cases', column: 'case_id', ids: [...new Set(rows.map((r) => r.case_id))] },
    ]);
    for (const r of rows) {
      for (const scope of scopesOf(r.branch)) {
        const run = pair(scope, r.error_fingerprint!, r.run_id);
        if (!oldRuns.has(run)) { oldRuns.add(run); countNew(r, scope, 'runs'); }
        const kase = pair(scope, r.error_fingerprint!, r.case_id);
        if (!oldCases.has(kase)) { oldCases.add(kase); countNew(r, scope, 'tests'); }
      }
    }
  }
  // Three tables, no row in two of them: one statement on PostgreSQL.
  await writeTogether(db, [runsWrite(db, runs), casesWrite(db, byKey(caseDeltas(failures, 1))), totalsWrite(db, byKey(fresh))]);
}

/** The failures of runs about to be deleted: read before the delete, for `uncountFailures` after it. */
export async function failuresOfRuns(db: AnyDb, runIds: string[]): Promise<FailureRow[]> {
  const out: FailureRow[] = [];
  for (const ids of chunk(runIds, IN_LIST_CHUNK)) {
    out.push(...(await db
      .selectFrom('tests')
      .select(['id', 'project_id', 'run_id', 'case_id', 'branch', 'created_at', 'error_fingerprint'])
      .where('run_id', 'in', ids)
      .where('error_fingerprint', 'is not', null)
      .execute()));
  }
  return out;
}

/**
 * Takes deleted failures out (in the deleting transaction, after the delete: their runs' rows of
 * `error_group_runs` went with the runs). Totals lose the occurrences, the runs, the tests left
 * without an occurrence, and get a new first or last occurrence when theirs was deleted; a group
 * left without occurrences goes.
 */
export async function uncountFailures(db: AnyDb, failures: FailureRow[]): Promise<void> {
  if (failures.length === 0) return;
  // The totals first, as ingestion does: their row locks order this against concurrent writers.
  const removed = new Map<string, { project_id: string; scope: string; fingerprint: string; occurrences: number }>();
  for (const r of failures) {
    for (const scope of scopesOf(r.branch)) {
      const k = [r.project_id, scope, r.error_fingerprint].join(SEP);
      const d = removed.get(k);
      if (d) d.occurrences++;
      else removed.set(k, { project_id: r.project_id, scope, fingerprint: r.error_fingerprint!, occurrences: 1 });
    }
  }
  for (const d of byKey(removed)) {
    await db.updateTable('error_group_totals').set((eb) => ({ occurrences: eb('occurrences', '-', d.occurrences) }))
      .where('project_id', '=', d.project_id).where('branch', '=', d.scope).where('fingerprint', '=', d.fingerprint).execute();
  }
  await uncountCases(db, failures);
  for (const [projectId, rows] of groupByProject(failures)) {
    const fps = [...new Set(rows.map((r) => r.error_fingerprint!))];
    for (const part of chunk(fps, IN_LIST_CHUNK)) {
      await db.deleteFrom('error_group_totals').where('project_id', '=', projectId).where('fingerprint', 'in', part).where('occurrences', '<=', 0).execute();
    }
    // Runs go whole, so each (scope, group, run) pair of theirs is gone; a (scope, group, case) pair
    // is gone when no case row of it is left.
    const [left] = await existingPairs(db, projectId, fps, [{ table: 'error_group_cases', column: 'case_id', ids: [...new Set(rows.map((r) => r.case_id))] }]);
    const runsGone = new Set<string>();
    const casesGone = new Set<string>();
    for (const r of rows) {
      for (const scope of scopesOf(r.branch)) {
        runsGone.add(pair(scope, r.error_fingerprint!, r.run_id));
        const kase = pair(scope, r.error_fingerprint!, r.case_id);
        if (!left.has(kase)) casesGone.add(kase);
      }
    }
    const minus = new Map<string, { runs: number; tests: number }>();
    const count = (p: string, what: 'runs' | 'tests') => {
      const k = p.slice(0, p.lastIndexOf(SEP));
      const m = minus.get(k) ?? { runs: 0, tests: 0 };
      m[what]++;
      minus.set(k, m);
    };
    for (const p of runsGone) count(p, 'runs');
    for (const p of casesGone) count(p, 'tests');
    const deletedIds = new Set(rows.map((r) => r.id));
    for (const part of chunk(fps, IN_LIST_CHUNK)) {
      const totals = await db.selectFrom('error_group_totals').select(['branch', 'fingerprint', 'first_id', 'last_id']).where('project_id', '=', projectId).where('fingerprint', 'in', part).execute();
      for (const t of totals) {
        const m = minus.get(`${t.branch}${SEP}${t.fingerprint}`);
        if (!m) continue;
        // A deleted first or last occurrence: the group's run rows that are left hold the new one.
        const left = () => {
          const q = db.selectFrom('error_group_runs').where('project_id', '=', projectId).where('fingerprint', '=', t.fingerprint);
          return t.branch === '' ? q : q.where('branch', '=', t.branch);
        };
        await db
          .updateTable('error_group_totals')
          .set((eb) => ({
            runs: eb('runs', '-', m.runs),
            tests: eb('tests', '-', m.tests),
            first_id: deletedIds.has(t.first_id) ? left().select((e) => e.fn.min('first_id').as('m')) : t.first_id,
            last_id: deletedIds.has(t.last_id) ? left().select((e) => e.fn.max('last_id').as('m')) : t.last_id,
          }))
          .where('project_id', '=', projectId).where('branch', '=', t.branch).where('fingerprint', '=', t.fingerprint)
          .execute();
      }
    }
  }
}

/** Case rows: decremented, gone at zero; a row whose newest occurrence was deleted gets the newest that is left. */
async function uncountCases(db: AnyDb, failures: FailureRow[]): Promise<void> {
  const deltas = byKey(caseDeltas(failures, -1));
  await writeTogether(db, [casesWrite(db, deltas)]);
  const byProject = new Map<string, CaseDelta[]>();
  for (const d of deltas) byProject.set(d.project_id, [...(byProject.get(d.project_id) ?? []), d]);
  for (const [projectId, ds] of byProject) {
    for (const part of chunk(ds, IN_LIST_CHUNK)) {
      const fps = [...new Set(part.map((d) => d.fingerprint))];
      await db.deleteFrom('error_group_cases').where('project_id', '=', projectId).where('fingerprint', 'in', fps).where('occurrences', '<=', 0).execute();
    }
    const deleted = failures.filter((f) => f.project_id === projectId);
    for (const part of chunk(deleted, IN_LIST_CHUNK)) {
      const stale = await db
        .selectFrom('error_group_cases')
        .select(['fingerprint', 'case_id', 'day', 'branch'])
        .where('project_id', '=', projectId)
        .where('fingerprint', 'in', [...new Set(part.map((f) => f.error_fingerprint!))])
        .where('last_id', 'in', part.map((f) => f.id))
        .execute();
      for (const s of stale) {
        // The case's own results (index tests_case), narrowed to the row's group, branch and day.
        const newest = db
          .selectFrom('tests')
          .select((eb) => eb.fn.max('id').as('m'))
          .where('case_id', '=', s.case_id)
          .where('error_fingerprint', '=', s.fingerprint)
          .where(sql`coalesce(branch, '')`, '=', s.branch)
          .where('created_at', '>=', s.day)
          .where('created_at', '<', `${s.day}T99`);
        await db
          .updateTable('error_group_cases')
          .set({ last_id: newest })
          .where('project_id', '=', projectId)
          .where('fingerprint', '=', s.fingerprint)
          .where('case_id', '=', s.case_id)
          .where('day', '=', s.day)
          .where('branch', '=', s.branch)
          .execute();
      }
    }
  }
}

/** Builds the tables from every stored failure: set-based `INSERT … SELECT … GROUP BY`s (migration 019). */
export async function countAllFailures(db: AnyDb): Promise<void> {
  for (const statement of ERROR_AGGREGATES_BACKFILL) await sql.raw(statement).execute(db);
}
