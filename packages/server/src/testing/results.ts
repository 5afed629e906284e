import type { TestServer } from './harness.js';

/** Shared helpers for the results tests (runs, tests, suites, flakiness, retention). */
export async function createRun(t: TestServer, body: Record<string, unknown> = {}, auth: string = t.apiKey) {
  const res = await t.api('POST', '/runs', { auth, body: { projectId: t.projectId, status: 'running', ...body } });
  if (res.status !== 201) throw new Error(`run create failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body as { id: string; [k: string]: unknown };
}

export const testBody = (runId: string, projectId: string, over: Record<string, unknown> = {}) => ({
  runId,
  projectId,
  title: 'adds items',
  fullTitle: 'cart > adds items',
  filePath: 'tests/cart.spec.ts',
  status: 'passed',
  duration: 120,
  ...over,
});

export async function postTests(t: TestServer, tests: Record<string, unknown>[], auth: string = t.apiKey) {
  const res = await t.api('POST', '/tests/batch', { auth, body: { tests } });
  if (res.status !== 201) throw new Error(`batch failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.data as { id: string; runId: string; status: string }[];
}

/** Row counts of every table a run owns rows in. */
export async function countRows(t: TestServer) {
  const db = t.server.services.deps.db;
  const out: Record<string, number> = {};
  for (const table of ['runs', 'tests', 'test_suites', 'test_cases', 'artifacts'] as const) {
    const r = await db.selectFrom(table).select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    out[table] = Number(r.n);
  }
  return out;
}
