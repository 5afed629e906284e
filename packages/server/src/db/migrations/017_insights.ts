import type { Kysely } from 'kysely';
import type { MigrationTypes } from '../database.js';
import { countAllResults } from '../../insights/upkeep.js';

/**
 * Insights aggregates (docs/insights.md "Insights", insights/upkeep.ts), kept as results arrive and
 * leave, and built here over every result already stored:
 * - `insight_case_days`: counts per (project, UTC day of the run, branch, test case); the primary
 *   key leads with project and day, so a window of days is one index range, with or without branch;
 * - `insight_case_durations`: the same key plus a log-scale duration bucket, with count and sum.
 * Both go with their project and their test case (FK cascade); retention and run deletion take a
 * run's results out before deleting it.
 */
export async function up(db: Kysely<any>, t: MigrationTypes): Promise<void> {
  await db.schema
    .createTable('insight_case_days')
    .addColumn('project_id', 'text', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('day', 'text', (c) => c.notNull())
    .addColumn('branch', 'text', (c) => c.notNull())
    .addColumn('case_id', 'text', (c) => c.notNull().references('test_cases.id').onDelete('cascade'))
    .addColumn('results', 'integer', (c) => c.notNull())
    .addColumn('passed', 'integer', (c) => c.notNull())
    .addColumn('failed', 'integer', (c) => c.notNull())
    .addColumn('flaky', 'integer', (c) => c.notNull())
    .addColumn('skipped', 'integer', (c) => c.notNull())
    .addColumn('latest_test_id', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('insight_case_days_pk', ['project_id', 'day', 'branch', 'case_id'])
    .execute();
  await db.schema
    .createTable('insight_case_durations')
    .addColumn('project_id', 'text', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('day', 'text', (c) => c.notNull())
    .addColumn('branch', 'text', (c) => c.notNull())
    .addColumn('case_id', 'text', (c) => c.notNull().references('test_cases.id').onDelete('cascade'))
    .addColumn('bucket', 'integer', (c) => c.notNull())
    .addColumn('n', 'integer', (c) => c.notNull())
    .addColumn('total_ms', t.float, (c) => c.notNull())
    .addPrimaryKeyConstraint('insight_case_durations_pk', ['project_id', 'day', 'branch', 'case_id', 'bucket'])
    .execute();
  // The FK cascades from a deleted test case look rows up by case.
  await db.schema.createIndex('insight_case_days_case').on('insight_case_days').column('case_id').execute();
  await db.schema.createIndex('insight_case_durations_case').on('insight_case_durations').column('case_id').execute();
  await countAllResults(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('insight_case_durations').execute();
  await db.schema.dropTable('insight_case_days').execute();
}
