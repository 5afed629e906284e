import type { Db } from '../db/database.js';
import type { EmailTokensTable } from '../db/schema.js';

type Kind = EmailTokensTable['kind'];

/** Single-use e-mail tokens (verification, password reset); only their SHA-256 is stored. */
export function createEmailTokenRepo(db: Db) {
  return {
    async insert(row: EmailTokensTable) {
      await db.insertInto('email_tokens').values(row).execute();
    },
    findByHash(tokenHash: string, kind: Kind) {
      return db.selectFrom('email_tokens').selectAll().where('token_hash', '=', tokenHash).where('kind', '=', kind).executeTakeFirst();
    },
    /** Marks the token used unless it already was; false means another request consumed it first. */
    async consume(id: string, at: string): Promise<boolean> {
      const r = await db.updateTable('email_tokens').set({ used_at: at }).where('id', '=', id).where('used_at', 'is', null).executeTakeFirst();
      return Number(r.numUpdatedRows) === 1;
    },
    /** Retires every unused token of a kind, so only the newest link works. */
    async retireAll(userId: string, kind: Kind, at: string) {
      await db.updateTable('email_tokens').set({ used_at: at }).where('user_id', '=', userId).where('kind', '=', kind).where('used_at', 'is', null).execute();
    },
  };
}
export type EmailTokenRepo = ReturnType<typeof createEmailTokenRepo>;
