import type { ServerConfig } from '../config.js';
import type { Db } from '../db/database.js';
import { hashPassword } from '../lib/crypto.js';
import { newId } from '../lib/ids.js';
import { createUserRepo } from './userRepo.js';

/** Stored instead of a password hash for accounts made by single sign-on. */
export const NO_PASSWORD = '!oidc';

/**
 * The accounts resource's user records, for other services (GET /me, bootstrap). Internal: no
 * principal and no authorization check, which stays with the calling service.
 */
export function createUserService(deps: { db: Db; config: ServerConfig }) {
  const users = createUserRepo(deps.db);
  return {
    findById: (id: string) => users.findById(id),
    findByEmail: (email: string) => users.findByEmail(email),
    async isEmpty(): Promise<boolean> {
      return !(await users.any());
    },
    /** An account whose e-mail address counts as verified (created by the operator, not signed up). */
    async createVerified(email: string, password: string) {
      const now = deps.config.now().toISOString();
      const row = {
        id: newId(), email, name: email.split('@')[0], password_hash: await hashPassword(password),
        email_verified_at: now, avatar_url: null, created_at: now, updated_at: now,
      };
      await users.insert(row);
      return row;
    },
    /**
     * An account made by single sign-on: verified (the identity provider vouched for the address) and
     * without a password (`NO_PASSWORD` is no scrypt hash, so no password matches it).
     */
    async createWithoutPassword(email: string, name: string) {
      const now = deps.config.now().toISOString();
      const row = { id: newId(), email, name, password_hash: NO_PASSWORD, email_verified_at: now, avatar_url: null, created_at: now, updated_at: now };
      await users.insert(row);
      return row;
    },
    /**
     * Verified by single sign-on, an account still waiting for its mailed link loses the password it
     * was signed up with: whoever chose it never proved the mailbox (no pre-registered takeover).
     */
    async verifyDroppingPassword(id: string) {
      const now = deps.config.now().toISOString();
      await users.update(id, { email_verified_at: now, password_hash: NO_PASSWORD, updated_at: now });
    },
    async markVerified(id: string) {
      const now = deps.config.now().toISOString();
      await users.update(id, { email_verified_at: now, updated_at: now });
    },
  };
}
export type UserService = ReturnType<typeof createUserService>;
