import type { TestCreateParsed, TestCreated } from '@testreport/contract';
import { LIMITS } from '@testreport/contract';
import type { Principal } from '../authz/principal.js';
import type { Deps } from '../deps.js';
import { NotFoundError, ValidationError } from '../lib/errors.js';
import { newId } from '../lib/ids.js';
import { int, toJson } from '../db/values.js';
import { fingerprintOf } from '../errorGroups/fingerprint.js';
import { joinTransaction, whenCommitted } from '../db/transaction.js';
import { together } from '../db/jointWrites.js';
import { createTestRepo, type RunOfResults, caseKey, type CaseKey, type TestRow } from './repo.js';
import type { RunService } from '../runs/service.js';
import { stepsOf, toTestCreated, toTestDetail, toTestListItem } from './present.js';

/** The location file of the error that decided the test: the first error of its last try that has errors. */
function errorFile(t: { attempts?: { errors?: { location?: { file: string } }[] }[] }): string | undefined {
  const tries = t.attempts ?? [];
  for (let i = tries.length - 1; i >= 0; i--) {
    const first = tries[i]!.errors?.[0];
    if (first) return first.location?.file;
  }
  return undefined;
}
import { ownersResolver, type OwnersOf } from '../owners/codeowners.js';
import { ownersColumn } from '../owners/filter.js';
import { countStoredResults } from '../insights/upkeep.js';
import { countStoredFailures } from '../errorGroups/upkeep.js';

/** A run as storing its results needs it, with its CODEOWNERS resolver. */
type StoringRun = RunOfResults & { ownersOf: OwnersOf };

/** How a test of the request is named in errors: `runId` for POST /tests, `tests[3].runId` for a batch. */
type FieldOf = (index: number, field: string) => string;
const singleField: FieldOf = (_i, field) => field;

/** `runs` hears of results arriving: they are activity of a CI build's running shards. */
export function createResultService(deps: Deps, others: { runs: Pick<RunService, 'internal'> }) {
  const { db } = deps;
  const repo = createTestRepo(db);

  /**
   * Every run must exist in its test's project. In the storing transaction: the runs come back
   * share-locked until it ends (results/repo.ts `lockRuns`), so none can be deleted under the batch.
   */
  async function runsOf(tests: TestCreateParsed[], fieldOf: FieldOf) {
    const runs = new Map<string, StoringRun>();
    for (const r of await repo.lockRuns([...new Set(tests.map((t) => t.runId))])) runs.set(r.id, { ...r, ownersOf: ownersResolver(r.codeowners, r.root_dir_in_repo) });
    tests.forEach((t, i) => {
      const run = runs.get(t.runId);
      // The same answer for "no such run" and "a run of another project", so nothing leaks.
      if (!run || run.project_id !== t.projectId) throw new ValidationError(fieldOf(i, 'runId'), 'invalid_value', `${fieldOf(i, 'runId')}: no run ${t.runId} in project ${t.projectId}`);
    });
    return runs;
  }

  /** Stores tests all-or-nothing in one transaction: a few multi-row statements, whatever the batch size. */
  async function store(principal: Principal, tests: TestCreateParsed[], fieldOf: FieldOf): Promise<TestCreated[]> {
    // Every distinct project must allow `report`.
    await deps.authz.projectsOfItems(principal, tests, 'report', fieldOf);
    return storeAllowed(tests, fieldOf);
  }

  /**
   * The one-test requests of a joint member (db/jointWrites.ts), each authorized for its own caller,
   * stored as one batch. Any failure fails them all; each then runs again alone and gets its own.
   */
  async function storeJointly(items: { principal: Principal; test: TestCreateParsed }[]): Promise<TestCreated[]> {
    for (const { principal, test } of items) await deps.authz.projectsOfItems(principal, [test], 'report', singleField);
    return storeAllowed(items.map((i) => i.test), singleField);
  }

  async function storeAllowed(tests: TestCreateParsed[], fieldOf: FieldOf): Promise<TestCreated[]> {
    let runs = new Map<string, StoringRun>();
    // Joins the Idempotency-Key's transaction when there is one: a failure here fails the request.
    const stored = await joinTransaction(db, async () => {
      runs = await runsOf(tests, fieldOf);
      const at = deps.config.now().toISOString();
      const ids = tests.map(() => newId());
      // Each test's case key once: it is hashed for the map, sorted and looked up again below.
      const keys: string[] = new Array(tests.length);
      const owners: (string | null)[] = new Array(tests.length);
      const cases = new Map<string, CaseKey>();
      tests.forEach((t, i) => {
        const filePath = t.filePath ?? '';
        const key = caseKey(t.projectId, filePath, t.fullTitle);
        keys[i] = key;
        owners[i] = ownersColumn(runs.get(t.runId)!.ownersOf(t.filePath ?? null));
        cases.set(key, { key, projectId: t.projectId, filePath, fullTitle: t.fullTitle, title: t.title, latestTestId: ids[i], owners: owners[i] });
      });
      const caseIds = await repo.upsertCases([...cases.values()], newId, at);
      const rows: TestRow[] = tests.map((t, i) => {
        const run = runs.get(t.runId)!;
        return {
          id: ids[i],
          run_id: t.runId,
          project_id: t.projectId,
          case_id: caseIds.get(keys[i])!,
          title: t.title,
          full_title: t.fullTitle,
          file_path: t.filePath ?? null,
          line_number: t.lineNumber ?? null,
          status: t.status,
          duration: t.duration,
          retries: t.retries ?? 0,
          attempt: t.attempt ?? 0,
          is_flaky: int(t.isFlaky === true || t.status === 'flaky'),
          // The text toJson(x ?? []) gives, without stringifying an absent list.
          tags: t.tags === undefined ? '[]' : JSON.stringify(t.tags),
          annotations: t.annotations === undefined ? '[]' : JSON.stringify(t.annotations),
          error: toJson(t.error),
          error_message: t.error?.message ?? null,
          // The file where the final error was thrown (its try's first error), else the test's own (docs/decisions.md §13).
          error_fingerprint: fingerprintOf(t.error?.message, errorFile(t) ?? t.filePath),
          // A try's steps are kept once, in `attempts`: without its own steps the test shows its last try's.
          steps: t.steps === undefined ? '[]' : JSON.stringify(t.steps),
          attempts: t.attempts === undefined || t.attempts.length === 0 ? null : JSON.stringify(t.attempts),
          stdout: t.stdout ?? null,
          stderr: t.stderr ?? null,
          branch: run.branch,
          commit_sha: run.commit_sha,
          // The run's attempt when stored: a CI re-run raises it, so its results supersede older ones.
          run_attempt: run.current_attempt,
          owners: owners[i],
          created_at: at,
        };
      });
      await repo.insertTests(rows);
      // In the same transaction: the insights aggregates never count a result that was not stored.
      await countStoredResults(db, rows, runs);
      // Likewise the error-group aggregates; a batch without failures only filters its rows.
      await countStoredFailures(db, rows);
      return rows.map(toTestCreated);
    });
    // After the commit, also of the Idempotency-Key's transaction the batch joined: a timestamp, not
    // part of the results. Its failure (e.g. a deadlock with a concurrent finish) must not turn a
    // stored batch into an error the reporter would retry, and on PostgreSQL a failed statement
    // inside the transaction would abort it; nor should the shard rows stay locked for the batch.
    const ciRuns = [...runs].filter(([, r]) => r.build_key !== null).map(([id]) => id);
    if (ciRuns.length > 0) {
      await whenCommitted(async () => {
        try {
          await others.runs.internal.resultsArrived(ciRuns);
        } catch (err) {
          deps.logger.warn(`could not record activity of CI runs: ${(err as Error).message}`);
        }
      });
    }
    return stored;
  }

  async function findReadable(principal: Principal, id: string) {
    const row = await repo.find(id);
    if (!row) throw new NotFoundError('Test');
    await deps.authz.project(principal, row.project_id, 'read', 'resource', 'test');
    return row;
  }

  return {
    /** Concurrent calls in a joint member of a group commit are stored together (db/jointWrites.ts). */
    async create(principal: Principal, test: TestCreateParsed) {
      return together({ principal, test }, storeJointly);
    },

    async createBatch(principal: Principal, tests: TestCreateParsed[]) {
      return { data: await store(principal, tests, (i, field) => `tests[${i}].${field}`) };
    },

    async list(principal: Principal, q: { projectId: string; runId?: string; status?: string; search?: string; owner?: string; superseded?: boolean; limit: number; offset: number }) {
      await deps.authz.project(principal, q.projectId, 'read', 'param');
      let latestAttemptOnly = false;
      if (q.runId) {
        const run = await db.selectFrom('runs').select(['project_id', 'current_attempt']).where('id', '=', q.runId).executeTakeFirst();
        if (run?.project_id !== q.projectId) return { data: [], total: 0, limit: q.limit, offset: q.offset };
        // Only a re-run CI build has superseded results; other runs skip the per-row check.
        latestAttemptOnly = run.current_attempt > 1 && q.superseded !== true;
      }
      const { rows, total } = await repo.list({ ...q, latestAttemptOnly });
      return { data: rows.map(toTestListItem), total, limit: q.limit, offset: q.offset };
    },

    async get(principal: Principal, id: string) {
      return toTestDetail(await findReadable(principal, id));
    },

    /** Steps of try `retry` (default the last); a try the test does not have is 404. */
    async steps(principal: Principal, id: string, retry?: number) {
      const steps = stepsOf(await findReadable(principal, id), retry);
      if (!steps) throw new NotFoundError('Attempt');
      return { data: steps };
    },

    /** The case's last 20 results in the project, newest first (the given one is among them when it is recent). */
    async history(principal: Principal, id: string) {
      const row = await findReadable(principal, id);
      const items = await repo.history(row.case_id, LIMITS.historyLength);
      const data = items.map((r) => ({
        id: r.id, runId: r.run_id, status: r.status as 'passed', duration: r.duration, branch: r.branch, commitSha: r.commit_sha, createdAt: r.created_at,
      }));
      return { data, total: data.length };
    },
  };
}
export type ResultService = ReturnType<typeof createResultService>;
