import type { Db } from '../db/database.js';
import type { InvitationsTable } from '../db/schema.js';

export function createInvitationRepo(db: Db) {
  return {
    async insert(row: InvitationsTable) {
      await db.insertInto('invitations').values(row).execute();
    },
    findById(id: string) {
      return db.selectFrom('invitations').selectAll().where('id', '=', id).executeTakeFirst();
    },
    findByTokenHash(tokenHash: string) {
      return db.selectFrom('invitations').selectAll().where('token_hash', '=', tokenHash).executeTakeFirst();
    },
    /** Newest first. */
    listByTeam(teamId: string) {
      return db.selectFrom('invitations').selectAll().where('team_id', '=', teamId).orderBy('id', 'desc').execute();
    },
    /** A pending invitation for the address that has not expired yet. */
    findOpen(teamId: string, email: string, now: string) {
      return db
        .selectFrom('invitations')
        .selectAll()
        .where('team_id', '=', teamId)
        .where('email', '=', email)
        .where('status', '=', 'pending')
        .where('expires_at', '>', now)
        .executeTakeFirst();
    },
    /** Moves a pending invitation on; false when it was no longer pending (a concurrent accept or revoke). */
    async closePending(id: string, status: 'accepted' | 'revoked', at: string): Promise<boolean> {
      const r = await db
        .updateTable('invitations')
        .set({ status, updated_at: at, ...(status === 'accepted' ? { accepted_at: at } : {}) })
        .where('id', '=', id)
        .where('status', '=', 'pending')
        .executeTakeFirst();
      return Number(r.numUpdatedRows) === 1;
    },
  };
}
export type InvitationRepo = ReturnType<typeof createInvitationRepo>;
