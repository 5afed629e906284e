import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDbKind } from '../testing/database.js';
import { startTestServer, type TestServer } from '../testing/harness.js';
import { createRun, postTests, testBody } from '../testing/results.js';

// Every stored result updates its test case (its newest result). On PostgreSQL an update that does
// not fit on its page writes the new version elsewhere, with new entries in every index of the
// table, and the old one stays until a vacuum: a suite run daily grew its cases table by a copy of
// itself per run (migration 024 keeps room on each page).
let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
}, 180_000);
afterAll(async () => {
  await t?.close();
});

const CASES = 400;
const RUNS = 12;
const pagesOf = async (table: string) => {
  const { rows } = await sql<{ pages: string }>`select pg_relation_size(${table}) / current_setting('block_size')::int as pages`.execute(t.server.services.deps.db);
  return Number(rows[0].pages);
};

describe('test cases updated by each run (PostgreSQL)', () => {
  it.runIf(testDbKind() === 'postgres')('stay on their pages run after run instead of growing the table by a copy per run', async () => {
    const run = async (n: number) => {
      const { id } = await createRun(t);
      const tests = Array.from({ length: CASES }, (_, i) => testBody(id, t.projectId, { title: `case ${i}`, fullTitle: `suite > case ${i}`, duration: n + i }));
      await postTests(t, tests);
    };
    await run(0);
    const first = await pagesOf('test_cases');
    for (let n = 1; n < RUNS; n++) await run(n);
    const last = await pagesOf('test_cases');
    // With full pages every run moved all 400 cases to new pages, a copy of the table per run: 14
    // pages became 142. With room they stay on their pages: 20 became 44 alone, 73 beside the rest
    // of the suite (dead versions wait for other transactions to end before they are pruned).
    expect(last - first).toBeLessThan(((RUNS - 1) * first) / 2);
    const stats = await t.server.services.deps.db.selectFrom('test_cases').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    expect(Number(stats.n)).toBe(CASES);
  });
});
