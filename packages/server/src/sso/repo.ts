import type { Db } from '../db/database.js';
import type { UserIdentitiesTable } from '../db/schema.js';

/** Pending sign-ins, linked identities and the memberships the team claim granted. */
export function createSsoRepo(db: Db) {
  return {
    async insertLogin(row: { state_hash: string; next: string; created_at: string; expires_at: string }) {
      await db.insertInto('oidc_logins').values({ ...row, used_at: null }).execute();
    },
    /** Marks the sign-in used and returns it; undefined when unknown, used already or expired (one callback per state, on any server). */
    async consumeLogin(stateHash: string, now: string) {
      const r = await db
        .updateTable('oidc_logins')
        .set({ used_at: now })
        .where('state_hash', '=', stateHash)
        .where('used_at', 'is', null)
        .where('expires_at', '>', now)
        .returning(['next'])
        .executeTakeFirst();
      return r;
    },
    async deleteExpiredLogins(now: string) {
      await db.deleteFrom('oidc_logins').where('expires_at', '<=', now).execute();
    },
    findIdentity(issuer: string, subject: string) {
      return db.selectFrom('user_identities').selectAll().where('issuer', '=', issuer).where('subject', '=', subject).executeTakeFirst();
    },
    async insertIdentity(row: UserIdentitiesTable) {
      await db.insertInto('user_identities').values(row).execute();
    },
    async touchIdentity(id: string, email: string, now: string) {
      await db.updateTable('user_identities').set({ email, last_sign_in_at: now }).where('id', '=', id).execute();
    },
    /** Teams a claim value names: by id, or by name (case-insensitive). */
    findTeams(idOrName: string) {
      return db
        .selectFrom('teams')
        .select(['id', 'name'])
        .where((eb) => eb.or([eb('id', '=', idOrName), eb(eb.fn('lower', ['name']), '=', idOrName.toLowerCase())]))
        .execute();
    },
    listGrants(userId: string) {
      return db.selectFrom('oidc_team_grants').select('team_id').where('user_id', '=', userId).execute();
    },
    async addGrant(userId: string, teamId: string, now: string) {
      await db.insertInto('oidc_team_grants').values({ user_id: userId, team_id: teamId, created_at: now }).onConflict((oc) => oc.columns(['user_id', 'team_id']).doNothing()).execute();
    },
    async deleteGrant(userId: string, teamId: string) {
      await db.deleteFrom('oidc_team_grants').where('user_id', '=', userId).where('team_id', '=', teamId).execute();
    },
  };
}
export type SsoRepo = ReturnType<typeof createSsoRepo>;
