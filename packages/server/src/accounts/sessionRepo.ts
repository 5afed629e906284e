import type { Db } from '../db/database.js';

export function createSessionRepo(db: Db) {
  return {
    async insert(row: { id: string; user_id: string; token_hash: string; created_at: string; expires_at: string }) {
      await db.insertInto('sessions').values(row).execute();
    },
    async findByTokenHash(tokenHash: string) {
      return db
        .selectFrom('sessions as s')
        .innerJoin('users as u', 'u.id', 's.user_id')
        .select(['s.id', 's.user_id', 's.expires_at', 'u.email', 'u.email_verified_at'])
        .where('s.token_hash', '=', tokenHash)
        .executeTakeFirst();
    },
    async delete(id: string) {
      await db.deleteFrom('sessions').where('id', '=', id).execute();
    },
    async deleteForUser(userId: string, exceptId?: string) {
      let q = db.deleteFrom('sessions').where('user_id', '=', userId);
      if (exceptId) q = q.where('id', '!=', exceptId);
      await q.execute();
    },
  };
}
export type SessionRepo = ReturnType<typeof createSessionRepo>;
