import type { Kysely } from 'kysely';
import type { MigrationTypes } from '../database.js';

/**
 * The whole first schema in one migration. Portable SQL only (runs on SQLite and PostgreSQL):
 * text ids (UUIDv7, time-ordered), ISO-8601 text timestamps, integer 0/1 booleans, JSON as text.
 * Floating-point columns take the dialect's 8-byte type (`real` on SQLite, as shipped).
 */
export async function up(db: Kysely<any>, t: MigrationTypes): Promise<void> {
  await db.schema
    .createTable('users')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('email', 'text', (c) => c.notNull().unique())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('password_hash', 'text', (c) => c.notNull())
    .addColumn('email_verified_at', 'text')
    .addColumn('avatar_url', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('sessions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('sessions_user').on('sessions').column('user_id').execute();

  await db.schema
    .createTable('email_tokens')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('kind', 'text', (c) => c.notNull()) // verify | reset
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('used_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('email_tokens_user').on('email_tokens').columns(['user_id', 'kind']).execute();

  await db.schema
    .createTable('teams')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('team_members')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('team_id', 'text', (c) => c.notNull().references('teams.id').onDelete('cascade'))
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('role', 'text', (c) => c.notNull())
    .addColumn('joined_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('team_members_team_user', ['team_id', 'user_id'])
    .execute();
  await db.schema.createIndex('team_members_user').on('team_members').column('user_id').execute();

  await db.schema
    .createTable('invitations')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('team_id', 'text', (c) => c.notNull().references('teams.id').onDelete('cascade'))
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('role', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('invited_by', 'text', (c) => c.references('users.id').onDelete('set null'))
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('accepted_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('invitations_team').on('invitations').columns(['team_id', 'id']).execute();

  await db.schema
    .createTable('projects')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('team_id', 'text', (c) => c.notNull().references('teams.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('projects_team').on('projects').columns(['team_id', 'id']).execute();

  await db.schema
    .createTable('project_settings')
    .addColumn('project_id', 'text', (c) => c.primaryKey().references('projects.id').onDelete('cascade'))
    .addColumn('data_retention_days', 'integer', (c) => c.notNull())
    .addColumn('flakiness_threshold', t.float, (c) => c.notNull())
    .addColumn('auto_quarantine_enabled', 'integer', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('api_keys')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('project_id', 'text', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('key_hash', 'text', (c) => c.notNull().unique())
    .addColumn('last4', 'text', (c) => c.notNull())
    .addColumn('is_active', 'integer', (c) => c.notNull())
    .addColumn('expires_at', 'text')
    .addColumn('last_used_at', 'text')
    .addColumn('created_by', 'text', (c) => c.references('users.id').onDelete('set null'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('api_keys_project').on('api_keys').columns(['project_id', 'id']).execute();

  await db.schema
    .createTable('runs')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('project_id', 'text', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('branch', 'text')
    .addColumn('commit_sha', 'text')
    .addColumn('commit_message', 'text')
    .addColumn('commit_author', 'text')
    .addColumn('ci_provider', 'text')
    .addColumn('ci_build_id', 'text')
    .addColumn('ci_build_url', 'text')
    .addColumn('framework_version', 'text')
    .addColumn('workers', 'integer')
    .addColumn('shard_current', 'integer')
    .addColumn('shard_total', 'integer')
    .addColumn('browser', 'text')
    .addColumn('os', 'text')
    .addColumn('viewport', 'text')
    .addColumn('hostname', 'text')
    .addColumn('run_title', 'text')
    .addColumn('tags', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('grep_patterns', 'text', (c) => c.notNull().defaultTo('[]'))
    // Counts are null until PATCHed: then they are derived from the stored tests (docs/decisions.md §4).
    .addColumn('total_tests', 'integer')
    .addColumn('passed_tests', 'integer')
    .addColumn('failed_tests', 'integer')
    .addColumn('skipped_tests', 'integer')
    .addColumn('flaky_tests', 'integer')
    .addColumn('duration', t.float)
    .addColumn('finished_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('runs_project').on('runs').columns(['project_id', 'id']).execute();
  await db.schema.createIndex('runs_project_status').on('runs').columns(['project_id', 'status', 'id']).execute();
  await db.schema.createIndex('runs_project_branch').on('runs').columns(['project_id', 'branch', 'id']).execute();
  await db.schema.createIndex('runs_created').on('runs').columns(['created_at']).execute();

  await db.schema
    .createTable('test_suites')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('run_id', 'text', (c) => c.notNull().references('runs.id').onDelete('cascade'))
    .addColumn('project_id', 'text', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('title', 'text', (c) => c.notNull())
    // '' stands for "no file" so the upsert key stays unique (NULLs never collide in a unique index).
    .addColumn('file_path', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('parent_suite_id', 'text', (c) => c.references('test_suites.id').onDelete('cascade'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('test_suites_identity', ['run_id', 'file_path', 'title'])
    .execute();

  // A test case: one row per (project, file, full title) so history, flakiness and quarantine are
  // index lookups rather than scans over every stored result (docs/decisions.md §7).
  await db.schema
    .createTable('test_cases')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('project_id', 'text', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('file_path', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('full_title', 'text', (c) => c.notNull())
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('latest_test_id', 'text')
    .addColumn('is_quarantined', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('quarantined_at', 'text')
    .addColumn('quarantine_source', 'text')
    .addColumn('flakiness_score', t.float, (c) => c.notNull().defaultTo(0))
    .addColumn('total_runs', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('flaky_runs', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('last_flaky_at', 'text')
    .addColumn('stats_dirty', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('test_cases_identity', ['project_id', 'file_path', 'full_title'])
    .execute();
  await db.schema.createIndex('test_cases_score').on('test_cases').columns(['project_id', 'flakiness_score']).execute();
  await db.schema.createIndex('test_cases_dirty').on('test_cases').columns(['project_id', 'stats_dirty']).execute();

  await db.schema
    .createTable('tests')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('run_id', 'text', (c) => c.notNull().references('runs.id').onDelete('cascade'))
    .addColumn('project_id', 'text', (c) => c.notNull())
    .addColumn('case_id', 'text', (c) => c.notNull().references('test_cases.id').onDelete('cascade'))
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('full_title', 'text', (c) => c.notNull())
    .addColumn('file_path', 'text')
    .addColumn('line_number', 'integer')
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('duration', t.float, (c) => c.notNull())
    .addColumn('retries', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('attempt', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('is_flaky', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('tags', 'text')
    .addColumn('annotations', 'text')
    .addColumn('error', 'text')
    .addColumn('error_message', 'text')
    .addColumn('steps', 'text')
    .addColumn('stdout', 'text')
    .addColumn('stderr', 'text')
    // Copied from the run so history and same-commit flakiness need no join.
    .addColumn('branch', 'text')
    .addColumn('commit_sha', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('tests_run').on('tests').columns(['run_id', 'id']).execute();
  await db.schema.createIndex('tests_case').on('tests').columns(['case_id', 'id']).execute();
  await db.schema.createIndex('tests_project').on('tests').columns(['project_id', 'id']).execute();

  await db.schema
    .createTable('artifacts')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('project_id', 'text', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('run_id', 'text', (c) => c.notNull().references('runs.id').onDelete('cascade'))
    .addColumn('test_id', 'text', (c) => c.references('tests.id').onDelete('cascade'))
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('file_name', 'text', (c) => c.notNull())
    .addColumn('file_size', 'integer', (c) => c.notNull())
    .addColumn('mime_type', 'text', (c) => c.notNull())
    .addColumn('storage_key', 'text', (c) => c.notNull())
    .addColumn('sha256', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('artifacts_run').on('artifacts').columns(['run_id', 'id']).execute();
  await db.schema.createIndex('artifacts_test').on('artifacts').columns(['test_id']).execute();

  await db.schema
    .createTable('webhooks')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('project_id', 'text', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('events', 'text', (c) => c.notNull())
    .addColumn('headers', 'text', (c) => c.notNull().defaultTo('{}'))
    .addColumn('secret', 'text')
    .addColumn('is_active', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('webhooks_project').on('webhooks').columns(['project_id', 'id']).execute();

  // The outbox: a delivery is stored before it is sent, so a restart loses none (docs/decisions.md §8).
  await db.schema
    .createTable('webhook_deliveries')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('webhook_id', 'text', (c) => c.notNull().references('webhooks.id').onDelete('cascade'))
    .addColumn('project_id', 'text', (c) => c.notNull())
    .addColumn('event', 'text', (c) => c.notNull())
    .addColumn('payload', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull()) // pending | succeeded | failed
    .addColumn('attempt_count', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('next_attempt_at', 'text')
    .addColumn('locked_until', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('webhook_deliveries_due').on('webhook_deliveries').columns(['status', 'next_attempt_at']).execute();
  await db.schema.createIndex('webhook_deliveries_hook').on('webhook_deliveries').columns(['webhook_id', 'id']).execute();

  await db.schema
    .createTable('webhook_attempts')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('delivery_id', 'text', (c) => c.notNull().references('webhook_deliveries.id').onDelete('cascade'))
    .addColumn('attempt', 'integer', (c) => c.notNull())
    .addColumn('status_code', 'integer')
    .addColumn('error', 'text')
    .addColumn('duration_ms', t.float, (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('webhook_attempts_delivery').on('webhook_attempts').columns(['delivery_id', 'attempt']).execute();

  await db.schema
    .createTable('idempotency_keys')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('scope', 'text', (c) => c.notNull()) // the caller: apiKey:<id> | user:<id> | ip:<addr>
    .addColumn('key', 'text', (c) => c.notNull())
    .addColumn('method', 'text', (c) => c.notNull())
    .addColumn('path', 'text', (c) => c.notNull())
    .addColumn('request_hash', 'text', (c) => c.notNull())
    .addColumn('status_code', 'integer') // null while the first request is in flight
    .addColumn('response_body', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('idempotency_scope_key', ['scope', 'key'])
    .execute();
  await db.schema.createIndex('idempotency_created').on('idempotency_keys').column('created_at').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const t of [
    'idempotency_keys', 'webhook_attempts', 'webhook_deliveries', 'webhooks', 'artifacts', 'tests', 'test_cases',
    'test_suites', 'runs', 'api_keys', 'project_settings', 'projects', 'invitations', 'team_members', 'teams',
    'email_tokens', 'sessions', 'users',
  ]) {
    await db.schema.dropTable(t).ifExists().execute();
  }
}
