import { sql, type Kysely } from 'kysely';
import { chunk, IN_LIST_CHUNK, rowsPerStatement } from '../db/batch.js';
import { writeMany } from '../db/bulk.js';
import { ERROR_CASES_BACKFILL, ERROR_RUNS_BACKFILL } from './backfill.js';

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
 * Writes are increments (`x = x + excluded.x`) in one key order, as insights/upkeep.ts does, so
 * concurrent batches of several servers add up and lock rows in one order.
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

async function upsertCases(db: AnyDb, deltas: CaseDelta[]) {
  await writeMany(db, deltas as unknown as Record<string, unknown>[], (part) =>
    db
      .insertInto('error_group_cases')
      .values(part as unknown as CaseDelta[])
      .onConflict((oc) => oc.columns(['project_id', 'fingerprint', 'case_id', 'day', 'branch']).doUpdateSet((eb) => ({
        occurrences: eb('error_group_cases.occurrences', '+', eb.ref('excluded.occurrences')),
        last_id: eb.case().when('excluded.last_id', '>', eb.ref('error_group_cases.last_id')).then(eb.ref('excluded.last_id')).else(eb.ref('error_group_cases.last_id')).end(),
      }))), CASE_ROWS);
}

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
  await writeMany(db, byKey(runs) as unknown as Record<string, unknown>[], (part) =>
    db
      .insertInto('error_group_runs')
      .values(part as unknown as RunDelta[])
      .onConflict((oc) => oc.columns(['project_id', 'fingerprint', 'run_id', 'day', 'branch']).doUpdateSet((eb) => ({
        occurrences: eb('error_group_runs.occurrences', '+', eb.ref('excluded.occurrences')),
        first_id: eb.case().when('excluded.first_id', '<', eb.ref('error_group_runs.first_id')).then(eb.ref('excluded.first_id')).else(eb.ref('error_group_runs.first_id')).end(),
        last_id: eb.case().when('excluded.last_id', '>', eb.ref('error_group_runs.last_id')).then(eb.ref('excluded.last_id')).else(eb.ref('error_group_runs.last_id')).end(),
      }))), RUN_ROWS);
  await upsertCases(db, byKey(caseDeltas(failures, 1)));
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
 * `error_group_runs` went with the runs). Case rows are decremented, and go at zero; a row whose
 * newest occurrence was deleted gets the newest that is left.
 */
export async function uncountFailures(db: AnyDb, failures: FailureRow[]): Promise<void> {
  if (failures.length === 0) return;
  const deltas = byKey(caseDeltas(failures, -1));
  await upsertCases(db, deltas);
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

/** Builds both tables from every stored failure: one `INSERT … SELECT … GROUP BY` each (migration 019). */
export async function countAllFailures(db: AnyDb): Promise<void> {
  await sql.raw(ERROR_RUNS_BACKFILL).execute(db);
  await sql.raw(ERROR_CASES_BACKFILL).execute(db);
}
