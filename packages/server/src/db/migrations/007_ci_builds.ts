import type { Kysely } from 'kysely';
import type { MigrationTypes } from '../database.js';

/**
 * One run per CI build (issue 12). A run created with a ciBuildId gets a `build_key` (a hash of
 * ciBuildId and group), unique per project, so shards and re-runs of one build join one run. Runs
 * stored before this migration keep a null key: several of them may share a ciBuildId, and they stay
 * separate runs (nothing is merged after the fact). `run_shards` holds every attempt of every shard;
 * `tests.run_attempt` the run's attempt a result was stored under, so the latest attempt of a test
 * counts and a fail-then-pass across attempts reads as flaky.
 */
export async function up(db: Kysely<any>, t: MigrationTypes): Promise<void> {
  await db.schema.alterTable('runs').addColumn('build_key', 'text').execute();
  await db.schema.alterTable('runs').addColumn('ci_group', 'text').execute();
  await db.schema.alterTable('runs').addColumn('current_attempt', 'integer', (c) => c.notNull().defaultTo(1)).execute();
  await db.schema.alterTable('runs').addColumn('finish_reason', 'text').execute();
  await db.schema.alterTable('runs').addColumn('finish_count', 'integer', (c) => c.notNull().defaultTo(0)).execute();
  await db.updateTable('runs').set({ finish_count: 1, finish_reason: 'status' }).where('finished_at', 'is not', null).execute();
  // NULL keys are distinct in a unique index on both databases: ungrouped runs never collide.
  await db.schema.createIndex('runs_build_key').on('runs').columns(['project_id', 'build_key']).unique().execute();
  // The inactivity sweep reads the running runs of CI builds.
  await db.schema.createIndex('runs_status_build').on('runs').columns(['status', 'build_key']).execute();

  await db.schema
    .createTable('run_shards')
    .addColumn('run_id', 'text', (c) => c.notNull().references('runs.id').onDelete('cascade'))
    .addColumn('shard_index', 'integer', (c) => c.notNull())
    .addColumn('attempt', 'integer', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('total_tests', 'integer')
    .addColumn('passed_tests', 'integer')
    .addColumn('failed_tests', 'integer')
    .addColumn('skipped_tests', 'integer')
    .addColumn('flaky_tests', 'integer')
    .addColumn('duration', t.float)
    .addColumn('started_at', 'text', (c) => c.notNull())
    .addColumn('finished_at', 'text')
    .addColumn('last_activity_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('run_shards_pk', ['run_id', 'shard_index', 'attempt'])
    .execute();
  // The inactivity sweep looks only at running attempts, oldest activity first.
  await db.schema.createIndex('run_shards_running').on('run_shards').columns(['status', 'last_activity_at']).execute();

  await db.schema.alterTable('tests').addColumn('run_attempt', 'integer', (c) => c.notNull().defaultTo(1)).execute();
  // The flakiness window reads run_attempt too: the index stays covering.
  await db.schema.dropIndex('tests_case_window').execute();
  await db.schema.createIndex('tests_case_window').on('tests').columns(['case_id', 'id', 'status', 'is_flaky', 'run_id', 'run_attempt', 'commit_sha', 'created_at']).execute();
  await db.schema.alterTable('project_settings').addColumn('shard_timeout_minutes', 'integer', (c) => c.notNull().defaultTo(30)).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('project_settings').dropColumn('shard_timeout_minutes').execute();
  await db.schema.dropIndex('tests_case_window').execute();
  await db.schema.createIndex('tests_case_window').on('tests').columns(['case_id', 'id', 'status', 'is_flaky', 'run_id', 'commit_sha', 'created_at']).execute();
  await db.schema.alterTable('tests').dropColumn('run_attempt').execute();
  await db.schema.dropTable('run_shards').execute();
  await db.schema.dropIndex('runs_status_build').execute();
  await db.schema.dropIndex('runs_build_key').execute();
  for (const col of ['finish_count', 'finish_reason', 'current_attempt', 'ci_group', 'build_key']) {
    await db.schema.alterTable('runs').dropColumn(col).execute();
  }
}
