import type { Kysely } from 'kysely';
import type { MigrationTypes } from '../database.js';

/**
 * Rate-limit windows shared by every server on one database (used where the dialect is
 * `sharedByServers`): one row per caller and group, holding the current fixed window's start (epoch
 * milliseconds, hence bigint) and its count. Rows of long-past windows are swept.
 */
export async function up(db: Kysely<any>, _t: MigrationTypes): Promise<void> {
  await db.schema
    .createTable('rate_limit_windows')
    .addColumn('bucket', 'text', (c) => c.primaryKey()) // <caller>|<group>
    .addColumn('window_start', 'bigint', (c) => c.notNull())
    .addColumn('count', 'integer', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('rate_limit_windows_start').on('rate_limit_windows').column('window_start').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('rate_limit_windows').ifExists().execute();
}
