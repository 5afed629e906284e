import { sql, type Kysely } from 'kysely';
import type { MigrationTypes } from '../database.js';
import { fingerprintOf } from '../../errorGroups/fingerprint.js';

const BACKFILL_BATCH = 1_000;

/**
 * Error groups across runs (docs/insights.md):
 * - `tests.error_fingerprint`, set at ingestion for every result with an error (errorGroups/fingerprint.ts);
 * - a partial index over the results that have one, holding what the groups count (case and run),
 *   so listing groups reads only failures, and only from the index;
 * - the fingerprints of results stored before this migration, computed here in batches.
 */
export async function up(db: Kysely<any>, _t: MigrationTypes): Promise<void> {
  await db.schema.alterTable('tests').addColumn('error_fingerprint', 'text').execute();
  let after = '';
  for (;;) {
    const rows: { id: string; error_message: string; file_path: string | null }[] = await db
      .selectFrom('tests')
      .select(['id', 'error_message', 'file_path'])
      .where('error_message', 'is not', null)
      .where('id', '>', after)
      .orderBy('id')
      .limit(BACKFILL_BATCH)
      .execute();
    if (rows.length === 0) break;
    for (const r of rows) await db.updateTable('tests').set({ error_fingerprint: fingerprintOf(r.error_message, r.file_path) }).where('id', '=', r.id).execute();
    after = rows[rows.length - 1].id;
  }
  await sql`create index tests_project_fingerprint on tests (project_id, error_fingerprint, id, case_id, run_id) where error_fingerprint is not null`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('tests_project_fingerprint').execute();
  await db.schema.alterTable('tests').dropColumn('error_fingerprint').execute();
}
