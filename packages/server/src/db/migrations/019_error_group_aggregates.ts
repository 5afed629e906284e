import type { Kysely } from 'kysely';
import type { MigrationTypes } from '../database.js';
import { countAllFailures } from '../../errorGroups/upkeep.js';

/**
 * Error-group aggregates (docs/insights.md "Error groups", errorGroups/upkeep.ts), kept as failures
 * arrive and leave, and built here over every failure already stored:
 * - `error_group_runs`: occurrences, first and last occurrence per (project, fingerprint, run, UTC
 *   day, branch); goes with its run (FK cascade, index on run_id);
 * - `error_group_cases`: occurrences and newest occurrence per (project, fingerprint, test case,
 *   UTC day, branch); goes with its test case (FK cascade), and run deletion subtracts from it.
 * - `error_group_totals`: per (project, scope, fingerprint) the figures `GET /errors` lists, scope ''
 *   for every branch and a branch's name for that branch.
 * The run and case tables' primary keys lead with project and fingerprint: a group is one range.
 */
export async function up(db: Kysely<any>, _t: MigrationTypes): Promise<void> {
  await db.schema
    .createTable('error_group_runs')
    .addColumn('project_id', 'text', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('fingerprint', 'text', (c) => c.notNull())
    .addColumn('run_id', 'text', (c) => c.notNull().references('runs.id').onDelete('cascade'))
    .addColumn('day', 'text', (c) => c.notNull())
    .addColumn('branch', 'text', (c) => c.notNull())
    .addColumn('occurrences', 'integer', (c) => c.notNull())
    .addColumn('first_id', 'text', (c) => c.notNull())
    .addColumn('last_id', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('error_group_runs_pk', ['project_id', 'fingerprint', 'run_id', 'day', 'branch'])
    .execute();
  await db.schema
    .createTable('error_group_cases')
    .addColumn('project_id', 'text', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('fingerprint', 'text', (c) => c.notNull())
    .addColumn('case_id', 'text', (c) => c.notNull().references('test_cases.id').onDelete('cascade'))
    .addColumn('day', 'text', (c) => c.notNull())
    .addColumn('branch', 'text', (c) => c.notNull())
    .addColumn('occurrences', 'integer', (c) => c.notNull())
    .addColumn('last_id', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('error_group_cases_pk', ['project_id', 'fingerprint', 'case_id', 'day', 'branch'])
    .execute();
  await db.schema
    .createTable('error_group_totals')
    .addColumn('project_id', 'text', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('branch', 'text', (c) => c.notNull())
    .addColumn('fingerprint', 'text', (c) => c.notNull())
    .addColumn('occurrences', 'integer', (c) => c.notNull())
    .addColumn('runs', 'integer', (c) => c.notNull())
    .addColumn('tests', 'integer', (c) => c.notNull())
    .addColumn('first_id', 'text', (c) => c.notNull())
    .addColumn('last_id', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('error_group_totals_pk', ['project_id', 'branch', 'fingerprint'])
    .execute();
  // No index on the last occurrence: every batch with failures moves it, and a project's groups
  // (hundreds, a few thousand) sort in a few milliseconds for a page, most recently seen first.
  // The FK cascades from a deleted run or test case look rows up by it.
  await db.schema.createIndex('error_group_runs_run').on('error_group_runs').column('run_id').execute();
  await db.schema.createIndex('error_group_cases_case').on('error_group_cases').column('case_id').execute();
  await countAllFailures(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('error_group_totals').execute();
  await db.schema.dropTable('error_group_cases').execute();
  await db.schema.dropTable('error_group_runs').execute();
}
