import type { Kysely } from 'kysely';
import { createSecretBox } from '../../lib/secretBox.js';
import type { MigrationContext, MigrationTypes } from '../database.js';

/**
 * Webhook signing secrets were stored in clear (docs/decisions.md §12 forbids it): each is sealed with
 * AES-256-GCM under a key derived from the server secret (lib/secretBox.ts), bound to its webhook's
 * id. A database with such secrets cannot be migrated without the server secret; one without any
 * (a new database, the tests' template) needs none.
 */
export async function up(db: Kysely<any>, _t: MigrationTypes, ctx: MigrationContext): Promise<void> {
  const rows: { id: string; secret: string }[] = await db.selectFrom('webhooks').select(['id', 'secret']).where('secret', 'is not', null).where('secret', 'not like', 'enc1:%').execute();
  if (rows.length === 0) return;
  if (!ctx.secret) throw new Error('sealing webhook secrets needs the server secret');
  const box = createSecretBox(ctx.secret);
  for (const r of rows) await db.updateTable('webhooks').set({ secret: box.seal(r.secret, r.id) }).where('id', '=', r.id).execute();
}

export async function down(db: Kysely<any>, _t: MigrationTypes, ctx: MigrationContext): Promise<void> {
  const rows: { id: string; secret: string }[] = await db.selectFrom('webhooks').select(['id', 'secret']).where('secret', 'like', 'enc1:%').execute();
  if (rows.length === 0) return;
  if (!ctx.secret) throw new Error('opening webhook secrets needs the server secret');
  const box = createSecretBox(ctx.secret, ctx.previousSecrets);
  for (const r of rows) await db.updateTable('webhooks').set({ secret: box.open(r.secret, r.id) }).where('id', '=', r.id).execute();
}
