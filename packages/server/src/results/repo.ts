import { sql, type Insertable, type Selectable } from 'kysely';
import { dialectOf, type Db } from '../db/database.js';
import type { RunResultCountsTable, RunsTable, TestsTable } from '../db/schema.js';
import { insertMany, upsertMany } from '../db/bulk.js';
import { searchIndexInserted } from '../db/search.js';
import { prepared } from '../db/prepared.js';
import { executeLater } from '../db/later.js';
import { chunk, IN_LIST_CHUNK } from '../db/batch.js';
import { containsIgnoringCase } from '../db/text.js';
import { ownedBy } from '../owners/filter.js';
import { replacedByLaterAttempt } from '../runs/attemptFilters.js';
import { STATUS_COUNT_FIELDS } from '../runs/statusCounts.js';

export type TestRow = Selectable<TestsTable>;
export interface CaseKey {
  /** `caseKey(projectId, filePath, fullTitle)`. */
  key: string;
  projectId: string;
  filePath: string;
  fullTitle: string;
  title: string;
  /** The newest result of this batch for the case (ids are time-ordered, so it is the case's newest). */
  latestTestId: string;
  /** That result's owners column. */
  owners: string | null;
}

/** The columns of a case row as `upsertCases` builds it, with their PostgreSQL types (`upsertMany`). */
const CASE_COLUMN_TYPES = {
  id: 'text', project_id: 'text', file_path: 'text', full_title: 'text', title: 'text',
  latest_test_id: 'text', owners: 'text', stats_dirty: 'integer', created_at: 'text', updated_at: 'text',
} as const;
/** Above this, GET /tests without runId reports a capped total (see docs/results.md). */
export const TOTAL_COUNT_CAP = 10_000;

export const caseKey = (projectId: string, filePath: string, fullTitle: string) => `${projectId}\u0000${filePath}\u0000${fullTitle}`;

/** What storing a result needs of its run. */
const RUN_COLUMNS = ['id', 'project_id', 'branch', 'commit_sha', 'current_attempt', 'build_key', 'created_at', 'codeowners', 'root_dir_in_repo'] as const;
export type RunOfResults = Pick<Selectable<RunsTable>, (typeof RUN_COLUMNS)[number]>;
/** Nearly every batch names one run: that lookup is compiled once (db/prepared.ts). */
const lockOneRun = prepared((db, v: Record<'id', string>) => db.selectFrom('runs').select(RUN_COLUMNS).where('id', '=', v.id).forKeyShare());

/**
 * Rows of a run's counts (migration 030): concurrent writes of one run mostly add to different ones
 * (4 batches in flight: each meets another's slot 5% of the time), and a read sums at most this many.
 */
const RESULT_COUNT_SLOTS = 64;

/** What these results add to each run's counts, in the slot their first result's id picks (its last two hex digits). */
function countsByRun(rows: readonly TestRow[]): Insertable<RunResultCountsTable>[] {
  const byRun = new Map<string, Insertable<RunResultCountsTable>>();
  for (const r of rows) {
    let c = byRun.get(r.run_id);
    if (!c) byRun.set(r.run_id, (c = { run_id: r.run_id, slot: parseInt(r.id.slice(-2), 16) % RESULT_COUNT_SLOTS || 0, total: 0, passed: 0, failed: 0, skipped: 0, flaky: 0 }));
    c.total++;
    if (r.status === 'passed' || r.status === 'failed' || r.status === 'skipped' || r.status === 'flaky') c[r.status]++;
  }
  // In one order, so concurrent writes to the same runs take their rows' locks alike (no deadlock).
  return [...byRun.values()].sort((x, y) => (x.run_id < y.run_id ? -1 : x.run_id > y.run_id ? 1 : 0));
}

/** Adds to a run's slot, or starts it. */
const addCounts = (db: Db, rows: Insertable<RunResultCountsTable>[]) =>
  db
    .insertInto('run_result_counts')
    .values(rows)
    .onConflict((oc) => oc.columns(['run_id', 'slot']).doUpdateSet((eb) => Object.fromEntries(STATUS_COUNT_FIELDS.map((c) => [c, eb(`run_result_counts.${c}`, '+', eb.ref(`excluded.${c}`))]))));
/** Nearly every batch names one run: that statement is compiled once (db/prepared.ts). */
const addOneRunsCounts = prepared((db, v: Record<keyof RunResultCountsTable, any>) =>
  addCounts(db, [{ run_id: v.run_id, slot: v.slot, total: v.total, passed: v.passed, failed: v.failed, skipped: v.skipped, flaky: v.flaky }]),
);

export function createTestRepo(db: Db) {
  return {
    /**
     * The runs of `runIds` that exist, share-locked until the caller's transaction ends: one found
     * cannot be deleted until the batch commits (its deletion then takes the batch's results too).
     * On PostgreSQL this is what each stored row's foreign key did per row (migration 027); SQLite
     * has no row locks (its writer holds the database) and keeps its keys, so there it is a lookup.
     */
    async lockRuns(runIds: readonly string[]): Promise<RunOfResults[]> {
      if (runIds.length === 1) return (await lockOneRun(db, { id: runIds[0]! })).rows;
      const rows: RunOfResults[] = [];
      for (const part of chunk([...runIds].sort(), IN_LIST_CHUNK)) {
        rows.push(...(await db.selectFrom('runs').select(RUN_COLUMNS).where('id', 'in', part).orderBy('id').forKeyShare().execute()));
      }
      return rows;
    },

    /**
     * Creates or touches the cases of a batch and returns their ids by caseKey. ON CONFLICT … DO
     * UPDATE … RETURNING works the same on PostgreSQL; keys are unique per statement because
     * PostgreSQL refuses to update one row twice in a single upsert. Keys go in one fixed order, so
     * concurrent batches touching the same cases (several servers, one database) lock their rows in
     * the same order and wait for each other instead of deadlocking.
     */
    async upsertCases(keys: CaseKey[], newId: () => string, at: string): Promise<Map<string, string>> {
      const ids = new Map<string, string>();
      const rows = [...keys]
        .sort((x, y) => (x.key < y.key ? -1 : x.key > y.key ? 1 : 0))
        .map((k) => ({
          id: newId(), project_id: k.projectId, file_path: k.filePath, full_title: k.fullTitle, title: k.title,
          latest_test_id: k.latestTestId, owners: k.owners, stats_dirty: 1, created_at: at, updated_at: at,
        }));
      const returned = await upsertMany<{ id: string; project_id: string; file_path: string; full_title: string }, 'test_cases'>(db, 'test_cases', rows, CASE_COLUMN_TYPES, (insert) =>
        insert
          .onConflict((oc) => oc.columns(['project_id', 'file_path', 'full_title']).doUpdateSet((eb) => {
            // Batches of several servers commit in any order: the newest result (ids are
            // time-ordered) wins, not the last commit; its owners go with it.
            const newer = eb.or([eb('test_cases.latest_test_id', 'is', null), eb('excluded.latest_test_id', '>', eb.ref('test_cases.latest_test_id'))]);
            return {
            title: eb.ref('excluded.title'),
            latest_test_id: eb.case().when(newer).then(eb.ref('excluded.latest_test_id')).else(eb.ref('test_cases.latest_test_id')).end(),
            owners: eb.case().when(newer).then(eb.ref('excluded.owners')).else(eb.ref('test_cases.owners')).end(),
            stats_dirty: 1,
            updated_at: eb.ref('excluded.updated_at'),
            };
          }))
          .returning(['id', 'project_id', 'file_path', 'full_title']), 'test_cases upsert');
      for (const r of returned) ids.set(caseKey(r.project_id, r.file_path, r.full_title), r.id);
      // A case whose id is the one proposed here was inserted, not found: its title goes into the
      // search index (the index's upkeep is per new case, not per result: db/search.ts).
      const proposed = new Set(rows.map((r) => r.id));
      await searchIndexInserted(db, { cases: returned.filter((r) => proposed.has(r.id)).map((r) => r.id), results: [] });
      return ids;
    },

    async insertTests(rows: TestRow[]) {
      await insertMany(db, 'tests', rows);
      await searchIndexInserted(db, { cases: [], results: rows.filter((r) => r.error_message != null || r.stdout != null || r.stderr != null).map((r) => r.id) });
      // Nobody reads its answer: on PostgreSQL it goes with the next statement (db/later.ts).
      const counts = countsByRun(rows);
      if (counts.length === 1) await executeLater(db, addOneRunsCounts.bound(db, counts[0]!));
      else if (counts.length > 1) await executeLater(db, addCounts(db, counts).compile());
    },

    async find(id: string): Promise<TestRow | undefined> {
      return db.selectFrom('tests').selectAll().where('id', '=', id).executeTakeFirst();
    },

    /** `latestAttemptOnly`: of a re-run CI build's run, each case's results of its latest attempt only (docs/decisions.md §13). */
    async list(q: { projectId: string; runId?: string; status?: string; search?: string; owner?: string; limit: number; offset: number; latestAttemptOnly?: boolean }) {
      // With a runId (whose project the service has checked) the run alone is the filter: adding
      // project_id would lead SQLite to walk the project's index newest-first instead of the run's.
      let base = q.runId ? db.selectFrom('tests').where('run_id', '=', q.runId) : db.selectFrom('tests').where('project_id', '=', q.projectId);
      // Only with a runId (the service's rule): a re-run's replaced results are left out.
      if (q.latestAttemptOnly && q.runId) base = base.where(sql<boolean>`not ${replacedByLaterAttempt(q.runId)}`);
      if (q.status) base = base.where('status', '=', q.status);
      if (q.owner) base = base.where(ownedBy(q.owner));
      if (q.search) {
        const search = q.search;
        const { foldCase } = dialectOf(db);
        base = base.where((eb) =>
          eb.or([...['title', 'full_title', 'file_path'].map((col) => containsIgnoringCase(col, search, foldCase)), containsIgnoringCase('error_message', search)]),
        );
      }
      const rows = await base
        .select(['id', 'run_id', 'title', 'full_title', 'file_path', 'status', 'duration', 'is_flaky', 'error', 'owners', 'run_attempt', 'created_at'])
        .orderBy('id', 'desc')
        .limit(q.limit)
        .offset(q.offset)
        .execute();
      // One run's results are few (index range on run_id); a whole project can hold millions, where an
      // exact count(*) would read every index entry on each page view, so it stops at the cap.
      const counted = q.runId ? base : base.select('id').limit(TOTAL_COUNT_CAP + 1);
      const total = q.runId
        ? await counted.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()
        : await db.selectFrom(counted.as('capped')).select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
      return { rows, total: Math.min(Number(total.n), q.runId ? Number.MAX_SAFE_INTEGER : TOTAL_COUNT_CAP) };
    },

    async history(caseId: string, limit: number) {
      return db
        .selectFrom('tests')
        .select(['id', 'run_id', 'status', 'duration', 'branch', 'commit_sha', 'created_at'])
        .where('case_id', '=', caseId)
        .orderBy('id', 'desc')
        .limit(limit)
        .execute();
    },
  };
}
export type TestRepo = ReturnType<typeof createTestRepo>;
