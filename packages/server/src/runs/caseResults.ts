import { sql, type Kysely } from 'kysely';
import { dialectOf } from '../db/database.js';
import { chunk } from '../db/batch.js';
import { unindexed } from '../db/planning.js';

type Column = 'id' | 'run_id' | 'case_id' | 'run_attempt' | 'status' | 'duration';
/** A run's first or last result id (ids are time-ordered): one step into tests_run. */
export const runEdgeId = (db: Kysely<any>, runId: string, dir: 'asc' | 'desc') =>
  db.selectFrom('tests').select('id').where('run_id', '=', runId).orderBy('id', dir).limit(1).executeTakeFirst().then((r) => r?.id as string | undefined);

/**
 * The results of some cases in one run, in id order (`newestOnly`: each case's newest), read case
 * by case from `tests_case_window` between the run's first and last result, never by walking the
 * run: its cost follows the cases asked for, not the run's size. Asked as `run_id = … and case_id
 * in (…)`, PostgreSQL walked the whole run through `tests_run` per call (115 ms per 500 cases of
 * a 100,000-result run, once per batch of a re-run: issue 30), and as `case_id in (…)` with the id
 * range it walked the run's ids through the primary key (350 ms per 500 cases). So on PostgreSQL
 * one LATERAL probe per case; on SQLite an IN list, which it probes per case, with the run checked
 * here rather than in SQL, where a run_id condition lets the planner scan the run through tests_run.
 */
export async function resultsOfCasesInRun<C extends Column>(db: Kysely<any>, runId: string, caseIds: string[], columns: readonly C[], newestOnly = false): Promise<Record<C | 'case_id' | 'id', any>[]> {
  if (caseIds.length === 0) return [];
  const first = await runEdgeId(db, runId, 'asc');
  const last = first && (await runEdgeId(db, runId, 'desc'));
  if (!first || !last) return [];
  const wanted = [...new Set<Column>(['case_id', 'id', ...columns])];
  type Row = Record<C | 'case_id' | 'id', any>;
  const out: Row[] = [];
  if (dialectOf(db).lateralOverArrays) {
    const inner = wanted.filter((c) => c !== 'case_id');
    const { rows } = await sql<Row>`select c.id as case_id, ${sql.join(inner.map((col) => sql.ref(`t.${col}`)))}
      from unnest(cast(${caseIds} as text[])) as c(id) cross join lateral (
        select ${sql.join(inner.map((col) => sql.ref(`tests.${col}`)))} from tests
        where tests.case_id = c.id and tests.id >= ${first} and tests.id <= ${last} and ${unindexed('tests.run_id')} = ${runId}
        order by tests.id desc ${newestOnly ? sql`limit 1` : sql``}) t`.execute(db);
    out.push(...rows);
  } else {
    const newest = new Map<string, Row>();
    for (const ids of chunk(caseIds, 500)) {
      const rows = await db.selectFrom('tests').select([...new Set<Column>([...wanted, 'run_id'])]).where('case_id', 'in', ids).where('id', '>=', first).where('id', '<=', last).execute();
      for (const r of rows as (Row & { run_id: string })[]) {
        if (r.run_id !== runId) continue;
        if (!newestOnly) out.push(r);
        else if (!(newest.get(r.case_id)?.id > r.id)) newest.set(r.case_id, r);
      }
    }
    out.push(...newest.values());
  }
  return out.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}
