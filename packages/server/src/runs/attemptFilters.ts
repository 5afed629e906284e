import { sql, type RawBuilder } from 'kysely';
import { unindexed } from '../db/planning.js';

/**
 * SQL forms of runs/attempts.ts for a query over one re-run CI build's results (`tests` being the
 * outer row, of run `runId`). Each looks for the same case's other attempts through
 * `tests_case_window` (case, then id), bounded by the run's first and last result id: every row of
 * the run lies in that range, and only the case's results there are read. Joined on the run id
 * instead, PostgreSQL walked the whole run through `tests_run` once per outer row whenever the run
 * was not in its statistics (a new run): 2.4 s for the flaky filter of a 5,000-test re-run, growing
 * with the square of the run (issue 30). `offset 0` keeps each EXISTS a subquery run per outer row
 * (PostgreSQL turns an EXISTS without one into an anti-join): without statistics of the new run, the
 * anti-join it chose compared every row of the run with every other (6.7 s for 10,000 rows), where
 * the probes take 29 ms. SQLite runs a correlated EXISTS per row anyway.
 */
const sameCaseInRun = (alias: string, runId: string) => sql`${sql.ref(`${alias}.case_id`)} = tests.case_id
  and ${sql.ref(`${alias}.id`)} >= (select min(id) from tests as edge where edge.run_id = ${runId})
  and ${sql.ref(`${alias}.id`)} <= (select max(id) from tests as edge where edge.run_id = ${runId})
  and ${unindexed(`${alias}.run_id`)} = ${runId}`;

/** A later attempt of the run ran this result's test again: the result no longer counts. */
export const replacedByLaterAttempt = (runId: string): RawBuilder<boolean> =>
  sql<boolean>`exists (select 1 from tests as later where ${sameCaseInRun('later', runId)} and later.run_attempt > tests.run_attempt limit 1 offset 0)`;

/** The test failed in an earlier attempt of the run: passed now, it reads flaky. */
export const failedInEarlierAttempt = (runId: string): RawBuilder<boolean> =>
  sql<boolean>`exists (select 1 from tests as earlier where ${sameCaseInRun('earlier', runId)} and earlier.run_attempt < tests.run_attempt and earlier.status = 'failed' limit 1 offset 0)`;
