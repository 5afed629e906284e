import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDbKind } from '../testing/database.js';
import { startTestServer, type TestServer } from '../testing/harness.js';
import { createRun, postTests, testBody } from '../testing/results.js';

// Every stored result updates its test case (its newest result). On PostgreSQL an update that does
// not fit on its page writes the new version on another page, with new entries in every index of
// the table, and the old one stays until a vacuum: a suite run daily grew its cases table by a copy
// of itself per run (migration 024 keeps room on each page for the new versions).
let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
}, 180_000);
afterAll(async () => {
  await t?.close();
});

const CASES = 400;

/** The page each case's current version is on (the block number of its `ctid`). */
const pageOfEachCase = async () => {
  const { rows } = await sql<{ title: string; page: string }>`select title, (ctid::text::point)[0] as page from test_cases`.execute(t.server.services.deps.db);
  return new Map(rows.map((r) => [r.title, Number(r.page)]));
};

describe('test cases updated by each run (PostgreSQL)', () => {
  it.runIf(testDbKind() === 'postgres')('keep their new versions on the same page instead of moving every case to a new page', async () => {
    const run = async (n: number) => {
      const { id } = await createRun(t);
      const tests = Array.from({ length: CASES }, (_, i) => testBody(id, t.projectId, { title: `case ${i}`, fullTitle: `suite > case ${i}`, duration: n + i }));
      await postTests(t, tests);
    };
    await run(0);
    const before = await pageOfEachCase();
    await run(1);
    const after = await pageOfEachCase();
    expect(after.size).toBe(CASES);
    // The second run updates every case once. No version is dead yet when it starts, so what stays
    // on its page depends only on the room left there (not on pruning, which other transactions can
    // hold back): with full pages 0 of 400 stayed, with the room 172.
    const stayed = [...after].filter(([title, page]) => before.get(title) === page).length;
    expect(stayed).toBeGreaterThan(CASES / 4);
  });
});
