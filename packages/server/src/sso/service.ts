import type { OidcSettings } from '../config.js';
import type { Deps } from '../deps.js';
import { isUniqueViolation } from '../db/errors.js';
import type { UserService } from '../accounts/users.js';
import type { MemberService } from '../members/service.js';
import { randomToken, safeEqual, sha256Hex } from '../lib/crypto.js';
import { AppError } from '../lib/errors.js';
import { newId } from '../lib/ids.js';
import { createOidcProvider, type VerifiedIdentity } from './provider.js';
import { createSsoRepo } from './repo.js';
import { createTeamSync } from './teamSync.js';

/** How long a started sign-in may take at the provider. */
export const SIGN_IN_TTL_MS = 10 * 60 * 1000;

/** A sign-in the callback refuses; the message is shown to the user as is. */
export class SignInRefused extends AppError {
  constructor(message: string, status: 400 | 403 = 403) {
    super(status, status === 400 ? 'VALIDATION_ERROR' : 'FORBIDDEN', message);
  }
}

/** openid-client's error, code and cause (which claim, which check) for the log. */
function whatFailed(err: unknown): Record<string, unknown> {
  const e = err as Error & { code?: string; cause?: unknown };
  const cause = e.cause instanceof Error ? { message: e.cause.message, code: (e.cause as { code?: string }).code } : e.cause;
  return { error: e.message, code: e.code, cause: cause instanceof Response ? undefined : cause };
}

const START_AGAIN = 'This sign-in link is not valid any more (already used, expired, or started in another browser). Start again.';

/**
 * Single sign-on with OpenID Connect (docs/sso.md). `start` records a sign-in and gives the provider's
 * URL; `finish` checks the callback, finds, links or creates the account and applies the team claim.
 * The route creates the session, the same kind as after a password sign-in.
 */
export function createSsoService(deps: Deps, settings: OidcSettings, others: { users: UserService; members: MemberService }) {
  const { db, config, logger } = deps;
  const repo = createSsoRepo(db);
  const provider = createOidcProvider(settings, config.secret, () => `${config.publicUrl}/auth/oidc/callback`);
  const applyTeamClaim = createTeamSync(deps, others.members.internal);
  const { users } = others;
  const domainOf = (email: string) => email.slice(email.lastIndexOf('@') + 1);
  const domainAllowed = (email: string) => settings.allowedDomains.includes('*') || settings.allowedDomains.includes(domainOf(email));

  /** The account of a verified identity: linked before, else the account with its e-mail (linked now), else a new one. */
  async function accountFor(id: VerifiedIdentity & { email: string }): Promise<{ userId: string; created: boolean; linked: boolean }> {
    const now = config.now().toISOString();
    const identity = await repo.findIdentity(id.issuer, id.subject);
    if (identity) {
      await repo.touchIdentity(identity.id, id.email, now);
      return { userId: identity.user_id, created: false, linked: false };
    }
    let user = await users.findByEmail(id.email);
    const created = !user;
    if (!user) {
      if (!domainAllowed(id.email)) {
        throw new SignInRefused(`Accounts for ${domainOf(id.email)} addresses are not created here. Ask an administrator of testreport to allow your domain.`);
      }
      try {
        user = await users.createWithoutPassword(id.email, id.name ?? id.email.split('@')[0]!);
      } catch (err) {
        if (!isUniqueViolation(err)) throw err;
        user = await users.findByEmail(id.email); // created by a concurrent sign-in
        if (!user) throw err;
      }
    } else if (!user.email_verified_at) {
      // The provider verified the address, the same proof as the mailed link; the password set at
      // sign-up was never proven by this mailbox's owner, so it goes.
      await users.verifyDroppingPassword(user.id);
    }
    try {
      await repo.insertIdentity({ id: newId(), user_id: user.id, issuer: id.issuer, subject: id.subject, email: id.email, created_at: now, last_sign_in_at: now });
    } catch (err) {
      if (!isUniqueViolation(err)) throw err;
    }
    return { userId: user.id, created, linked: !created };
  }

  return {
    name: settings.name,

    async start(next: string): Promise<{ state: string; url: URL }> {
      const now = config.now();
      const state = randomToken();
      await repo.deleteExpiredLogins(now.toISOString());
      await repo.insertLogin({ state_hash: sha256Hex(state), next, created_at: now.toISOString(), expires_at: new Date(now.getTime() + SIGN_IN_TTL_MS).toISOString() });
      return { state, url: await provider.authorizationUrl(state) };
    },

    /**
     * `browserState` is the state the start put into this browser's cookie: a callback is accepted only
     * in the browser that started it (no signing someone in to an account of the attacker's choosing).
     */
    async finish(callbackUrl: URL, browserState: string | undefined): Promise<{ userId: string; next: string }> {
      const error = callbackUrl.searchParams.get('error');
      if (error) {
        const description = callbackUrl.searchParams.get('error_description');
        throw new SignInRefused(`${settings.name} did not sign you in (${error}${description ? `: ${description}` : ''}).`);
      }
      const state = callbackUrl.searchParams.get('state');
      if (!state || !browserState || !safeEqual(state, browserState)) throw new SignInRefused(START_AGAIN, 400);
      const login = await repo.consumeLogin(sha256Hex(state), config.now().toISOString());
      if (!login) throw new SignInRefused(START_AGAIN, 400);

      let id: VerifiedIdentity;
      try {
        id = await provider.finish(callbackUrl, state);
      } catch (err) {
        logger.warn('audit: sso sign-in refused: the provider\'s answer failed verification', whatFailed(err));
        throw new SignInRefused(`The answer from ${settings.name} could not be verified, so you were not signed in. Start again; if it keeps happening, tell an administrator.`);
      }
      if (!id.email || !id.emailVerified) {
        logger.warn('audit: sso sign-in refused: no verified e-mail', { issuer: id.issuer, subject: id.subject, email: id.email });
        throw new SignInRefused(`${settings.name} did not confirm a verified e-mail address for you, which testreport needs to know who you are.`);
      }
      const email = id.email;
      const account = await accountFor({ ...id, email }).catch((err) => {
        if (err instanceof SignInRefused) logger.warn('audit: sso sign-in refused', { issuer: id.issuer, subject: id.subject, email, reason: err.message });
        throw err;
      });
      if (settings.teamClaim) await applyTeamClaim(account.userId, id.claims[settings.teamClaim], settings.manageTeams);
      logger.info('audit: sso sign-in', { userId: account.userId, email, issuer: id.issuer, subject: id.subject, created: account.created, linked: account.linked });
      return { userId: account.userId, next: login.next };
    },
  };
}
export type SsoService = ReturnType<typeof createSsoService>;
