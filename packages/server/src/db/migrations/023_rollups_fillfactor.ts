import type { Kysely } from 'kysely';
import { setFillfactor } from './fillfactor.js';

/** Free space kept on each page of `insight_rollups` for new versions of its rows. */
export const ROLLUPS_FILLFACTOR = 70;

/**
 * PostgreSQL: the insights fold rewrites each case's rollup rows every time that case has new
 * results, and with full pages (the default fillfactor of 100) none of those updates was HOT: each
 * version went to another page with a new entry in the primary key, so the fold's lookups by key
 * stepped over every earlier version until a vacuum ran. After two 50,000-test runs 7 of 200,000
 * updates were HOT, and a lookup of 500 cases read 150,000 buffers (65 ms; 60 s of a bigrun bench).
 * Updated columns are not indexed, so with room on the page an update stays on it, without an
 * index entry, and the page's dead versions are pruned as it is read. Pages written from now on
 * keep the room; SQLite has no such setting and rewrites a row in place.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await setFillfactor(db, 'insight_rollups', ROLLUPS_FILLFACTOR);
}

export async function down(db: Kysely<any>): Promise<void> {
  await setFillfactor(db, 'insight_rollups', null);
}
