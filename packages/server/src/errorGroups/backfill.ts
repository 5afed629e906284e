/**
 * The error-group aggregates built from every stored failure (errorGroups/upkeep.ts describes the
 * tables): one set-based `INSERT … SELECT … GROUP BY` per table over the partial index of the
 * results with a fingerprint, the same SQL on SQLite and PostgreSQL (timestamps are ISO text, so a
 * result's UTC day is its first 10 characters; totals have scope '' for every branch and one per
 * named branch). Plain strings without imports, so that the
 * migration (019) and the benchmark that writes history straight into the tables
 * (bench/lib/errorAggregates.mjs) run this very text.
 */
export const ERROR_RUNS_BACKFILL = `
insert into error_group_runs (project_id, fingerprint, run_id, day, branch, occurrences, first_id, last_id)
select project_id, error_fingerprint, run_id, substr(created_at, 1, 10), coalesce(branch, ''), count(*), min(id), max(id)
from tests
where error_fingerprint is not null
group by project_id, error_fingerprint, run_id, substr(created_at, 1, 10), coalesce(branch, '')`;

export const ERROR_CASES_BACKFILL = `
insert into error_group_cases (project_id, fingerprint, case_id, day, branch, occurrences, last_id)
select project_id, error_fingerprint, case_id, substr(created_at, 1, 10), coalesce(branch, ''), count(*), max(id)
from tests
where error_fingerprint is not null
group by project_id, error_fingerprint, case_id, substr(created_at, 1, 10), coalesce(branch, '')`;

export const ERROR_TOTALS_BACKFILL = `
insert into error_group_totals (project_id, branch, fingerprint, occurrences, runs, tests, first_id, last_id)
select project_id, '', error_fingerprint, count(*), count(distinct run_id), count(distinct case_id), min(id), max(id)
from tests
where error_fingerprint is not null
group by project_id, error_fingerprint
union all
select project_id, branch, error_fingerprint, count(*), count(distinct run_id), count(distinct case_id), min(id), max(id)
from tests
where error_fingerprint is not null and branch is not null and branch <> ''
group by project_id, branch, error_fingerprint`;

/** Every statement, in order. */
export const ERROR_AGGREGATES_BACKFILL = [ERROR_RUNS_BACKFILL, ERROR_CASES_BACKFILL, ERROR_TOTALS_BACKFILL];
