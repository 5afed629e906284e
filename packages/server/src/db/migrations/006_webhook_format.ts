import type { Kysely } from 'kysely';
import type { MigrationTypes } from '../database.js';

/**
 * A webhook's body format (`generic`, `slack`, `teams`). Existing webhooks keep today's signed JSON:
 * the column defaults to `generic`, so adding it rewrites nothing on either database.
 */
export async function up(db: Kysely<any>, _t: MigrationTypes): Promise<void> {
  await db.schema.alterTable('webhooks').addColumn('format', 'text', (c) => c.notNull().defaultTo('generic')).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('webhooks').dropColumn('format').execute();
}
