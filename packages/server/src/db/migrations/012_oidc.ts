import type { Kysely } from 'kysely';

/**
 * Single sign-on (docs/sso.md):
 * - `oidc_logins`: one row per sign-in started at /auth/oidc/start, in the database so that the
 *   callback may reach any server of a fleet. Only a hash of `state` is kept; the PKCE verifier and
 *   the nonce are derived from `state` and the server secret, so the row holds nothing secret.
 *   `used_at` makes each state good for one callback.
 * - `user_identities`: the account an issuer's subject signs in as (issuer + `sub`, never the e-mail,
 *   which a user may change at the provider).
 * - `oidc_team_grants`: memberships the team claim granted, so `--oidc-manage-teams` removes only
 *   those and leaves memberships made by hand alone.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('oidc_logins')
    .addColumn('state_hash', 'text', (c) => c.primaryKey())
    .addColumn('next', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('used_at', 'text')
    .execute();
  await db.schema.createIndex('oidc_logins_expires').on('oidc_logins').column('expires_at').execute();

  await db.schema
    .createTable('user_identities')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('issuer', 'text', (c) => c.notNull())
    .addColumn('subject', 'text', (c) => c.notNull())
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('last_sign_in_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('user_identities_issuer_subject', ['issuer', 'subject'])
    .execute();
  await db.schema.createIndex('user_identities_user').on('user_identities').column('user_id').execute();

  await db.schema
    .createTable('oidc_team_grants')
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('team_id', 'text', (c) => c.notNull().references('teams.id').onDelete('cascade'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('oidc_team_grants_pk', ['user_id', 'team_id'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('oidc_team_grants').execute();
  await db.schema.dropTable('user_identities').execute();
  await db.schema.dropTable('oidc_logins').execute();
}
