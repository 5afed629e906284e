import type { Suite, SuiteNode, SuiteUpsert } from '@testreport/contract';
import type { Principal } from '../authz/principal.js';
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

export function createSuiteService(deps: Deps) {
  const { db } = deps;

  async function runOfProject(runId: string, projectId: string) {
    const run = await db.selectFrom('runs').select(['id']).where('id', '=', runId).where('project_id', '=', projectId).executeTakeFirst();
    return run !== undefined;
  }

  return {
    /** Upsert on (run, title, file path): `created` tells the route whether to answer 201 or 200. */
    async upsert(principal: Principal, input: SuiteUpsert): Promise<{ suite: Suite; created: boolean }> {
      await deps.authz.project(principal, input.projectId, 'report', 'param');
      if (!(await runOfProject(input.runId, input.projectId))) throw new ValidationError('runId', 'invalid_value', `runId: no run ${input.runId} in project ${input.projectId}`);
      const filePath = input.filePath ?? '';
      return db.transaction().execute(async (trx) => {
        const repo = createSuiteRepo(trx);
        const at = deps.config.now().toISOString();
        const existing = await repo.findByIdentity(input.runId, filePath, input.title);
        const parentId = input.parentSuiteId;
        if (parentId) {
          const links = new Map((await repo.parentLinks(input.runId)).map((l) => [l.id, l.parent_suite_id]));
          if (!links.has(parentId)) throw new ValidationError('parentSuiteId', 'invalid_value', 'parentSuiteId: not a suite of this run');
          // Walking up from the new parent must not reach the suite itself, or the tree would lose a loop.
          for (let cur: string | null | undefined = parentId; cur; cur = links.get(cur)) {
            if (existing && cur === existing.id) throw new ValidationError('parentSuiteId', 'invalid_value', 'parentSuiteId: would make the suite its own ancestor');
          }
        }
        if (existing) {
          // An omitted parentSuiteId keeps the stored parent; an explicit null makes the suite a root.
          if (parentId !== undefined) await repo.setParent(existing.id, parentId, at);
          else await repo.touch(existing.id, at);
          return { suite: toSuite({ ...existing, parent_suite_id: parentId === undefined ? existing.parent_suite_id : parentId, updated_at: at }), created: false };
        }
        const row: SuiteRow = {
          id: newId(), run_id: input.runId, project_id: input.projectId, title: input.title, file_path: filePath,
          parent_suite_id: parentId ?? null, created_at: at, updated_at: at,
        };
        await repo.insert(row);
        return { suite: toSuite(row), created: true };
      });
    },

    async list(principal: Principal, q: { runId: string; projectId: string }) {
      await deps.authz.project(principal, q.projectId, 'read', 'param');
      if (!(await runOfProject(q.runId, q.projectId))) throw new NotFoundError('Run');
      return { data: buildTree(await createSuiteRepo(db).ofRun(q.runId)) };
    },
  };
}
