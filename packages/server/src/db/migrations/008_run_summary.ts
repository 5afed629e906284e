import type { Kysely } from 'kysely';
import type { MigrationTypes } from '../database.js';

/**
 * Run summaries (`GET /runs/:id/summary`, `reporter summary`):
 * - a project's default branch, what summaries compare with when the caller names no base. The
 *   column defaults to 'main', so existing projects get it without a rewrite on either database;
 * - `GET /runs?ciBuildId=` (`reporter summary --build`) reads the newest run of a CI build from an index.
 */
export async function up(db: Kysely<any>, _t: MigrationTypes): Promise<void> {
  await db.schema.alterTable('project_settings').addColumn('default_branch', 'text', (c) => c.notNull().defaultTo('main')).execute();
  await db.schema.createIndex('runs_project_build').on('runs').columns(['project_id', 'ci_build_id', 'id']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('runs_project_build').execute();
  await db.schema.alterTable('project_settings').dropColumn('default_branch').execute();
}
