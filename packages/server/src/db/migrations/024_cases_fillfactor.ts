import type { Kysely } from 'kysely';
import { setFillfactor } from './fillfactor.js';

/** Free space kept on each page of `test_cases` for new versions of its rows. */
export const CASES_FILLFACTOR = 70;

/**
 * PostgreSQL: every stored result updates its case (`latest_test_id`, `updated_at`: the case upsert
 * of results/repo.ts). With full pages (the default fillfactor of 100) almost none of those updates
 * was HOT: 3,055 of 85,500 in ten 10,000-test runs. Each version went to another page with a new
 * entry in all four indexes of the table (the identity key among them: project, file and title),
 * and the table held 37 MB for 10,000 cases until a vacuum. With room on the page, an update that
 * changes no indexed column stays on its page without index entries, and the page's dead versions
 * are pruned as it is read: 15% less WAL and about 13% less PostgreSQL CPU per stored result in the
 * ingest bench (docs/benchmarks.md). An update that flips the indexed `stats_dirty` (the first
 * result of a case after its flakiness was recomputed, and the recompute itself) is still not HOT.
 * Pages written from now on keep the room; SQLite has no such setting and rewrites a row in place.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await setFillfactor(db, 'test_cases', CASES_FILLFACTOR);
}

export async function down(db: Kysely<any>): Promise<void> {
  await setFillfactor(db, 'test_cases', null);
}
