import type { Baseline, Snapshot, SnapshotAccept } from '@testreport/contract';
import type { Principal } from '../authz/principal.js';
import { inTransaction } from '../db/transaction.js';
import type { Deps } from '../deps.js';
import { NotFoundError, ValidationError } from '../lib/errors.js';
import { signArtifactUrl } from '../artifacts/signing.js';
import { groupSnapshots, type SnapshotGroup } from './group.js';
import { createBaselineRepo } from './repo.js';

export interface ReviewTest { id: string; title: string; fullTitle: string; filePath: string | null }
export interface ReviewFile { filePath: string | null; tests: { test: ReviewTest; snapshots: Snapshot[] }[] }

/** Screenshot baselines (docs/decisions.md §13): a test's snapshots, accepting their actuals, a run's accepted ones. */
export function createBaselineService(deps: Deps) {
  const { db, authz, config } = deps;
  const repo = createBaselineRepo(db);

  async function testOf(principal: Principal, testId: string, action: 'read' | 'baselines') {
    const test = await repo.test(testId);
    if (!test) throw new NotFoundError('Test');
    await authz.project(principal, test.project_id, action, 'resource', 'test');
    return test;
  }

  const toSnapshots = (groups: SnapshotGroup[], accepted: Map<string, { accepted_by: string; accepted_at: string }>) =>
    groups.map((g): Snapshot => {
      const a = accepted.get(g.name);
      return {
        name: g.name,
        snapshotPath: g.snapshotPath,
        ...(g.expected ? { expected: g.expected } : {}),
        actual: g.actual,
        ...(g.diff ? { diff: g.diff } : {}),
        retry: g.retry,
        acceptance: a ? { by: a.accepted_by, at: a.accepted_at } : null,
      };
    });

  async function list(testId: string): Promise<{ groups: SnapshotGroup[]; out: Snapshot[] }> {
    const groups = groupSnapshots(await repo.screenshots(testId));
    const accepted = new Map((await repo.acceptances(testId)).map((a) => [a.name, a]));
    return { groups, out: toSnapshots(groups, accepted) };
  }

  /** The snapshots `names` picks (all when absent); a name the test has no snapshot of is a 400. */
  function pick(groups: SnapshotGroup[], names: string[] | undefined): SnapshotGroup[] {
    if (!names) return groups;
    const known = new Set(groups.map((g) => g.name));
    const unknown = names.filter((n) => !known.has(n));
    if (unknown.length) throw new ValidationError('names', 'invalid_value', `names: this test has no snapshot named ${unknown.map((n) => JSON.stringify(n)).join(', ')}`);
    const wanted = new Set(names);
    return groups.filter((g) => wanted.has(g.name));
  }

  async function actorName(principal: Principal): Promise<string> {
    if (principal.kind === 'apiKey') return principal.name;
    if (principal.kind === 'user') {
      const user = await db.selectFrom('users').select('name').where('id', '=', principal.userId).executeTakeFirst();
      return user?.name || principal.email;
    }
    throw new Error('an anonymous caller cannot accept baselines');
  }

  return {
    async snapshots(principal: Principal, testId: string): Promise<Snapshot[]> {
      await testOf(principal, testId, 'read');
      return (await list(testId)).out;
    },

    /** Marks actuals as the new baselines; accepting an accepted snapshot again changes nothing and announces nothing. */
    async accept(principal: Principal, testId: string, input: SnapshotAccept): Promise<Snapshot[]> {
      const test = await testOf(principal, testId, 'baselines');
      const by = await actorName(principal);
      const at = config.now().toISOString();
      await inTransaction(db, async () => {
        const chosen = pick((await list(testId)).groups, input.names);
        const added = await repo.accept(chosen.map((g) => ({ test_id: testId, name: g.name, run_id: test.run_id, actual_id: g.actual, accepted_by: by, accepted_at: at })));
        if (added.length === 0) return;
        const paths = new Map(chosen.map((g) => [g.name, g.snapshotPath]));
        await deps.events.emit('baselines.accepted', {
          accepted: {
            runId: test.run_id, testId, projectId: test.project_id, fullTitle: test.full_title, url: `${config.publicUrl}/runs/${test.run_id}/visual`,
            snapshots: added.map((r) => ({ name: r.name, snapshotPath: paths.get(r.name)!, actual: r.actual_id })),
            by, at,
          },
        });
      });
      return (await list(testId)).out;
    },

    async unaccept(principal: Principal, testId: string, input: SnapshotAccept): Promise<Snapshot[]> {
      await testOf(principal, testId, 'baselines');
      await inTransaction(db, async () => {
        const chosen = pick((await list(testId)).groups, input.names);
        await repo.unaccept(testId, chosen.map((g) => g.name));
      });
      return (await list(testId)).out;
    },

    /** The visual review page: every snapshot of the run's tests, grouped by test file (then title). */
    async review(principal: Principal, runId: string): Promise<ReviewFile[]> {
      const run = await repo.runProject(runId);
      if (!run) throw new NotFoundError('Run');
      await authz.project(principal, run.project_id, 'read', 'resource', 'run');
      const [files, accepted] = await Promise.all([repo.runScreenshots(runId), repo.runAcceptances(runId)]);
      const byTest = new Map<string, { test: ReviewTest; files: typeof files }>();
      for (const f of files) {
        const testId = f.test_id!;
        let e = byTest.get(testId);
        if (!e) byTest.set(testId, (e = { test: { id: testId, title: f.title, fullTitle: f.full_title, filePath: f.file_path }, files: [] }));
        e.files.push(f);
      }
      const out = new Map<string, ReviewFile>();
      for (const { test, files: own } of byTest.values()) {
        const snapshots = toSnapshots(groupSnapshots(own), new Map(accepted.filter((a) => a.test_id === test.id).map((a) => [a.name, a])));
        if (snapshots.length === 0) continue;
        const key = test.filePath ?? '';
        let file = out.get(key);
        if (!file) out.set(key, (file = { filePath: test.filePath, tests: [] }));
        file.tests.push({ test, snapshots });
      }
      const files_ = [...out.values()].sort((a, b) => (a.filePath ?? '').localeCompare(b.filePath ?? ''));
      for (const f of files_) f.tests.sort((a, b) => a.test.fullTitle.localeCompare(b.test.fullTitle));
      return files_;
    },

    /** For the run page's link to the review (the caller has read the run): snapshot actuals of all tries. */
    countOfRun: (runId: string) => repo.countActuals(runId),

    /** A form names a test of this run: another run's test is 404 (nothing leaks). */
    async inRun(principal: Principal, runId: string, testId: string): Promise<void> {
      const test = await testOf(principal, testId, 'read');
      if (test.run_id !== runId) throw new NotFoundError('Test');
    },

    /** "Accept all in this file": accepts every snapshot of the run's tests of `filePath`. */
    async acceptFile(principal: Principal, runId: string, filePath: string): Promise<void> {
      for (const t of await repo.testsOfFile(runId, filePath)) {
        const test = await testOf(principal, t.id, 'baselines');
        if (test.run_id !== runId) throw new NotFoundError('Test');
        if ((await list(t.id)).groups.length) await this.accept(principal, t.id, {});
      }
    },

    async runBaselines(principal: Principal, runId: string): Promise<{ data: Baseline[] }> {
      const run = await repo.runProject(runId);
      if (!run) throw new NotFoundError('Run');
      await authz.project(principal, run.project_id, 'read', 'resource', 'run');
      // Sorted here, not in SQL: the databases' collations order paths differently.
      const byPath = (a: string | null | undefined, b: string | null | undefined) => ((a ?? '') < (b ?? '') ? -1 : (a ?? '') > (b ?? '') ? 1 : 0);
      const rows = (await repo.ofRun(runId)).sort((a, b) => byPath(a.snapshot_path, b.snapshot_path) || byPath(a.test_id, b.test_id));
      return {
        data: rows.map((r) => ({
          testId: r.test_id,
          name: r.name,
          snapshotPath: r.snapshot_path ?? '',
          actual: r.actual_id,
          url: signArtifactUrl(config, r.actual_id).url,
          sha256: r.sha256,
          acceptance: { by: r.accepted_by, at: r.accepted_at },
        })),
      };
    },
  };
}
export type BaselineService = ReturnType<typeof createBaselineService>;
