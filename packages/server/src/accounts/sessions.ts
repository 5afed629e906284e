import type { ServerConfig } from '../config.js';
import { newId } from '../lib/ids.js';
import { randomToken, sha256Hex } from '../lib/crypto.js';
import { EmailNotVerifiedError, UnauthorizedError } from '../lib/errors.js';
import type { Principal } from '../authz/principal.js';
import type { SessionRepo } from './sessionRepo.js';
import { SESSION_COOKIE } from '@testreport/contract';

export { SESSION_COOKIE };
export const SESSION_LIFETIME_MS = 14 * 24 * 3600 * 1000;

/** Server-side sessions: the cookie holds a random token; only its SHA-256 is stored. */
export function createSessionService(repo: SessionRepo, config: ServerConfig) {
  return {
    async create(userId: string): Promise<{ token: string; expiresAt: string }> {
      const now = config.now();
      const token = randomToken();
      const expiresAt = new Date(now.getTime() + SESSION_LIFETIME_MS).toISOString();
      await repo.insert({ id: newId(), user_id: userId, token_hash: sha256Hex(token), created_at: now.toISOString(), expires_at: expiresAt });
      return { token, expiresAt };
    },
    /** The principal for a cookie token. Unverified users are refused platform access (spec part 5). */
    async authenticate(token: string, opts: { allowUnverified?: boolean } = {}): Promise<Extract<Principal, { kind: 'user' }>> {
      const row = await repo.findByTokenHash(sha256Hex(token));
      if (!row || row.expires_at <= config.now().toISOString()) throw new UnauthorizedError('Your session has expired; sign in again');
      if (!row.email_verified_at && !opts.allowUnverified) throw new EmailNotVerifiedError();
      return { kind: 'user', userId: row.user_id, email: row.email, sessionId: row.id };
    },
    revoke: (sessionId: string) => repo.delete(sessionId),
    revokeAllForUser: (userId: string, exceptSessionId?: string) => repo.deleteForUser(userId, exceptSessionId),
  };
}
export type SessionService = ReturnType<typeof createSessionService>;
