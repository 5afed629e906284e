import { sql, type RawBuilder } from 'kysely';

/**
 * `column || ''`: the same text, which no index matches and which PostgreSQL does not treat as equal
 * to the column (so it derives no other condition from it). For a condition that must only filter
 * the rows another index found. `later.run_id = tests.run_id` beside `tests.run_id = $1` let
 * PostgreSQL's planner walk the whole run through `tests_run` once per failure when the new run's
 * rows were not in its statistics: 7–50 s for the run page of a 50,000-test run (issue 30).
 */
export const unindexed = (column: string): RawBuilder<string> => sql<string>`${sql.ref(column)} || ''`;
