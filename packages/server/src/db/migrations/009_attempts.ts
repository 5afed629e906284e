import type { Kysely } from 'kysely';
import type { MigrationTypes } from '../database.js';

/**
 * Attempts of a test (docs/decisions.md §13):
 * - `tests.attempts`: every try of the result as one JSON text (errors, steps, output, text
 *   attachments), NULL when the client sent none. One column, not a table: a batch of 500 tests
 *   stays one multi-row INSERT, and the test page reads a result with its tries in one row.
 * - `artifacts.retry`: the try that made the file, NULL when the uploader did not say.
 * Both are nullable without a default, so neither database rewrites the tables.
 */
export async function up(db: Kysely<any>, _t: MigrationTypes): Promise<void> {
  await db.schema.alterTable('tests').addColumn('attempts', 'text').execute();
  await db.schema.alterTable('artifacts').addColumn('retry', 'integer').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('artifacts').dropColumn('retry').execute();
  await db.schema.alterTable('tests').dropColumn('attempts').execute();
}
