import type { Suite, SuiteBatchItem, SuiteNode, SuiteUpsert } from '@testreport/contract';
import type { Principal } from '../authz/principal.js';
import type { Db } from '../db/database.js';
import type { Deps } from '../deps.js';
import { NotFoundError, ValidationError } from '../lib/errors.js';
import { newId } from '../lib/ids.js';
import { createSuiteRepo, type SuiteRow } from './repo.js';

/** '' is the stored stand-in for "no file" (it keeps the upsert key unique); readers see null. */
const toSuite = (r: SuiteRow): Suite => ({
  id: r.id, runId: r.run_id, projectId: r.project_id, title: r.title, filePath: r.file_path || null, parentSuiteId: r.parent_suite_id, createdAt: r.created_at,
});

/** Builds the forest from flat rows; a suite whose parent is missing is shown as a root. */
export function buildTree(rows: SuiteRow[]): SuiteNode[] {
  const nodes = new Map<string, SuiteNode>();
  for (const r of rows) nodes.set(r.id, { id: r.id, title: r.title, filePath: r.file_path || null, parentSuiteId: r.parent_suite_id, createdAt: r.created_at, children: [] });
  const roots: SuiteNode[] = [];
  for (const r of rows) {
    const parent = r.parent_suite_id ? nodes.get(r.parent_suite_id) : undefined;
    (parent ? parent.children : roots).push(nodes.get(r.id)!);
  }
  return roots;
}

/** How an item is named in errors: `parentSuiteId` for POST /test-suites, `suites[3].parentSuiteId` for a batch. */
type FieldOf = (index: number, field: string) => string;

export function createSuiteService(deps: Deps) {
  const { db } = deps;

  /** Every distinct project must allow `report`; every run must exist in its item's project. */
  async function checkScope(principal: Principal, items: SuiteBatchItem[], fieldOf: FieldOf) {
    await deps.authz.projectsOfItems(principal, items, 'report', fieldOf);
    const runIds = [...new Set(items.map((s) => s.runId))];
    const found = new Map<string, string>();
    // A batch holds at most 500 items, so one IN list is enough.
    for (const r of await db.selectFrom('runs').select(['id', 'project_id']).where('id', 'in', runIds).execute()) found.set(r.id, r.project_id);
    items.forEach((s, i) => {
      // The same answer for "no such run" and "a run of another project", so nothing leaks.
      if (found.get(s.runId) !== s.projectId) throw new ValidationError(fieldOf(i, 'runId'), 'invalid_value', `${fieldOf(i, 'runId')}: no run ${s.runId} in project ${s.projectId}`);
    });
  }

  /**
   * Upserts the items in order inside the caller's transaction, exactly as that many POST
   * /test-suites would: an item repeating an earlier one (same run, title, file path) updates it.
   * Parent links of a run are read once and kept current in memory for the cycle check.
   */
  async function upsertAll(trx: Db, items: SuiteBatchItem[], fieldOf: FieldOf): Promise<{ suite: Suite; created: boolean }[]> {
    const repo = createSuiteRepo(trx);
    const at = deps.config.now().toISOString();
    const linksOf = new Map<string, Map<string, string | null>>();
    const links = async (runId: string) => {
      let m = linksOf.get(runId);
      if (!m) linksOf.set(runId, (m = new Map((await repo.parentLinks(runId)).map((l) => [l.id, l.parent_suite_id]))));
      return m;
    };
    const out: { suite: Suite; created: boolean }[] = [];
    for (const [i, input] of items.entries()) {
      let parentId = input.parentSuiteId;
      let parentField = 'parentSuiteId';
      if (input.parentIndex !== undefined) {
        parentField = 'parentIndex';
        const f = fieldOf(i, parentField);
        if (input.parentSuiteId !== undefined) throw new ValidationError(f, 'invalid_value', `${f}: give parentSuiteId or parentIndex, not both`);
        if (input.parentIndex >= i) throw new ValidationError(f, 'invalid_value', `${f}: must name an earlier suite of the batch`);
        const parent = out[input.parentIndex].suite;
        if (parent.runId !== input.runId) throw new ValidationError(f, 'invalid_value', `${f}: suites[${input.parentIndex}] belongs to another run`);
        parentId = parent.id;
      }
      const filePath = input.filePath ?? '';
      const existing = await repo.findByIdentity(input.runId, filePath, input.title);
      if (parentId) {
        const runLinks = await links(input.runId);
        const f = fieldOf(i, parentField);
        if (!runLinks.has(parentId)) throw new ValidationError(f, 'invalid_value', `${f}: not a suite of this run`);
        // Walking up from the new parent must not reach the suite itself, or the tree would lose a loop.
        for (let cur: string | null | undefined = parentId; cur; cur = runLinks.get(cur)) {
          if (existing && cur === existing.id) throw new ValidationError(f, 'invalid_value', `${f}: would make the suite its own ancestor`);
        }
      }
      if (existing) {
        // An omitted parent keeps the stored one; an explicit null makes the suite a root.
        if (parentId !== undefined) {
          await repo.setParent(existing.id, parentId, at);
          linksOf.get(input.runId)?.set(existing.id, parentId);
        } else await repo.touch(existing.id, at);
        out.push({ suite: toSuite({ ...existing, parent_suite_id: parentId === undefined ? existing.parent_suite_id : parentId, updated_at: at }), created: false });
        continue;
      }
      const row: SuiteRow = {
        id: newId(), run_id: input.runId, project_id: input.projectId, title: input.title, file_path: filePath,
        parent_suite_id: parentId ?? null, created_at: at, updated_at: at,
      };
      await repo.insert(row);
      linksOf.get(input.runId)?.set(row.id, row.parent_suite_id);
      out.push({ suite: toSuite(row), created: true });
    }
    return out;
  }

  async function runOfProject(runId: string, projectId: string) {
    const run = await db.selectFrom('runs').select(['id']).where('id', '=', runId).where('project_id', '=', projectId).executeTakeFirst();
    return run !== undefined;
  }

  return {
    /** Upsert on (run, title, file path): `created` tells the route whether to answer 201 or 200. */
    async upsert(principal: Principal, input: SuiteUpsert): Promise<{ suite: Suite; created: boolean }> {
      const fieldOf: FieldOf = (_i, field) => field;
      await checkScope(principal, [input], fieldOf);
      const [result] = await db.transaction().execute((trx) => upsertAll(trx, [input], fieldOf));
      return result;
    },

    /** 1–500 upserts in one transaction, all or nothing; see upsertAll for the per-item rules. */
    async upsertBatch(principal: Principal, items: SuiteBatchItem[]): Promise<{ data: Suite[] }> {
      const fieldOf: FieldOf = (i, field) => `suites[${i}].${field}`;
      await checkScope(principal, items, fieldOf);
      const results = await db.transaction().execute((trx) => upsertAll(trx, items, fieldOf));
      return { data: results.map((r) => r.suite) };
    },

    async list(principal: Principal, q: { runId: string; projectId: string }) {
      await deps.authz.project(principal, q.projectId, 'read', 'param');
      if (!(await runOfProject(q.runId, q.projectId))) throw new NotFoundError('Run');
      return { data: buildTree(await createSuiteRepo(db).ofRun(q.runId)) };
    },
  };
}
