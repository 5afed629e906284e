import type { ResponseOf, User } from '@testreport/contract';
import type { Principal } from '../authz/principal.js';
import type { Deps } from '../deps.js';
import type { Db } from '../db/database.js';
import { isUniqueViolation } from '../db/errors.js';
import { hashPassword, randomToken, sha256Hex, verifyPassword } from '../lib/crypto.js';
import { ConflictError, EmailNotVerifiedError, ForbiddenError, UnauthorizedError, ValidationError } from '../lib/errors.js';
import { newId } from '../lib/ids.js';
import { inTransaction } from '../db/transaction.js';
import { toProject } from '../projects/present.js';
import type { ProjectService } from '../projects/service.js';
import { toTeamWithRole } from '../teams/present.js';
import type { TeamService } from '../teams/service.js';
import { createMailOut } from './mailing.js';
import { accountMails } from './mails.js';
import { toUser } from './present.js';
import { createSessionRepo } from './sessionRepo.js';
import { createEmailTokenRepo } from './tokenRepo.js';
import { createUserRepo } from './userRepo.js';

export const VERIFY_TOKEN_TTL_MS = 24 * 3600 * 1000;
export const RESET_TOKEN_TTL_MS = 3600 * 1000;

const SIGNUP_MESSAGE = 'Check your inbox: we sent a link to verify your e-mail address.';
const FORGOT_MESSAGE = 'If an account exists for that address, a link to reset its password is on its way.';
const BAD_CREDENTIALS = 'E-mail or password is incorrect';

/**
 * Sign-up, verification, sign-in checks, password reset, onboarding (docs/decisions.md §4–§5). Teams and
 * projects are created through their services' internal methods; this service authorizes.
 */
export function createAccountService(deps: Deps, others: { teams: TeamService; projects: ProjectService }) {
  const { db, config } = deps;
  const users = createUserRepo(db);
  const tokens = createEmailTokenRepo(db);
  const teams = others.teams.internal;
  const projects = others.projects.internal;
  const mail = createMailOut(deps.mailer, deps.logger);
  const link = (page: string, token: string) => `${config.publicUrl}/${page}?token=${encodeURIComponent(token)}`;

  /** A hash of some password with the current scrypt parameters, to verify unknown e-mails against. */
  let dummyHash: string | undefined;
  /** Exactly one scrypt, like checking a real account: unknown e-mails cannot be told apart by time. */
  async function spendPasswordCheck(password: string) {
    if (dummyHash) await verifyPassword(password, dummyHash);
    else dummyHash = await hashPassword(password);
  }

  async function issueToken(trx: Db, userId: string, kind: 'verify' | 'reset'): Promise<string> {
    const now = config.now();
    const token = randomToken();
    const ttl = kind === 'verify' ? VERIFY_TOKEN_TTL_MS : RESET_TOKEN_TTL_MS;
    const repo = createEmailTokenRepo(trx);
    await repo.retireAll(userId, kind, now.toISOString());
    await repo.insert({
      id: newId(), user_id: userId, kind, token_hash: sha256Hex(token),
      expires_at: new Date(now.getTime() + ttl).toISOString(), used_at: null, created_at: now.toISOString(),
    });
    return token;
  }

  /** The stored token behind a link, refused with a reason a user can act on. */
  async function usableToken(token: string, kind: 'verify' | 'reset') {
    const what = kind === 'verify' ? 'verification link' : 'password reset link';
    const row = await tokens.findByHash(sha256Hex(token), kind);
    if (!row) throw new ValidationError('token', 'invalid_value', `This ${what} is not valid; open the newest link you were mailed`);
    if (row.used_at) throw new ValidationError('token', 'invalid_value', `This ${what} has already been used or replaced by a newer one`);
    if (row.expires_at <= config.now().toISOString()) {
      throw new ValidationError('token', 'invalid_value', `This ${what} has expired; ask for a new one`);
    }
    return row;
  }

  const usedTokenError = () => new ValidationError('token', 'invalid_value', 'This link has already been used');

  /** `--password-login=off` (docs/sso.md): every password flow answers 403, so passwords are no way in. */
  function passwordsAllowed() {
    if (!config.passwordLogin) {
      throw new ForbiddenError(`Password sign-in is turned off on this server; sign in with ${config.oidc?.name ?? 'single sign-on'} in the browser, or use an API key`);
    }
  }

  return {
    /**
     * Enumeration-safe: a taken address gets the same 201 answer (with a user object that is not the
     * stored account) and costs the same scrypt; only its owner learns, by mail, what happened.
     */
    async signup(input: { email: string; password: string; name?: string }): Promise<{ user: User; message: string }> {
      passwordsAllowed();
      const now = config.now().toISOString();
      const name = input.name ?? input.email.split('@')[0];
      const passwordHash = await hashPassword(input.password);
      const row = {
        id: newId(), email: input.email, name, password_hash: passwordHash, email_verified_at: null,
        avatar_url: null, created_at: now, updated_at: now,
      };
      try {
        const token = await db.transaction().execute(async (trx) => {
          await createUserRepo(trx).insert(row);
          return issueToken(trx, row.id, 'verify');
        });
        mail.send(accountMails.verify(input.email, link('verify-email', token)));
        return { user: toUser(row), message: SIGNUP_MESSAGE };
      } catch (err) {
        if (!isUniqueViolation(err)) throw err;
      }
      const existing = await users.findByEmail(input.email);
      if (existing?.email_verified_at) {
        mail.send(accountMails.alreadyRegistered(input.email, config.publicUrl));
      } else if (existing) {
        // Never overwrite the stored password here: that would let anyone who signs up second take
        // over an unverified account. The mailbox owner picks the password instead.
        const token = await db.transaction().execute(async (trx) => {
          await createEmailTokenRepo(trx).retireAll(existing.id, 'verify', now);
          return issueToken(trx, existing.id, 'reset');
        });
        mail.send(accountMails.finishSignup(input.email, link('reset-password', token)));
      }
      return { user: toUser({ ...row, id: newId() }), message: SIGNUP_MESSAGE };
    },

    async verifyEmail(token: string): Promise<{ message: string }> {
      const row = await usableToken(token, 'verify');
      const now = config.now().toISOString();
      await db.transaction().execute(async (trx) => {
        if (!(await createEmailTokenRepo(trx).consume(row.id, now))) throw usedTokenError();
        const user = await createUserRepo(trx).findById(row.user_id);
        if (user && !user.email_verified_at) await createUserRepo(trx).update(user.id, { email_verified_at: now, updated_at: now });
      });
      return { message: 'Your e-mail address is verified. You can sign in now.' };
    },

    /** Checks credentials; the route creates the session. Wrong password and unknown e-mail look the same. */
    async checkCredentials(email: string, password: string): Promise<User> {
      passwordsAllowed();
      const user = await users.findByEmail(email);
      // Accounts made by single sign-on have no password: they cost the same scrypt as a wrong guess.
      if (!user || !user.password_hash.startsWith('scrypt$')) {
        await spendPasswordCheck(password);
        throw new UnauthorizedError(BAD_CREDENTIALS);
      }
      if (!(await verifyPassword(password, user.password_hash))) throw new UnauthorizedError(BAD_CREDENTIALS);
      // Told only to someone who knows the password, so it reveals nothing to a guesser.
      if (!user.email_verified_at) throw new EmailNotVerifiedError('Verify your e-mail address first: open the link we mailed you when you signed up');
      return toUser(user);
    },

    async forgotPassword(email: string): Promise<{ message: string }> {
      passwordsAllowed();
      const user = await users.findByEmail(email);
      if (user) {
        const token = await db.transaction().execute((trx) => issueToken(trx, user.id, 'reset'));
        mail.send(accountMails.reset(user.email, link('reset-password', token)));
      }
      return { message: FORGOT_MESSAGE };
    },

    /** Sets the password, proves the mailbox (so it also verifies the address) and ends every session. */
    async resetPassword(token: string, password: string): Promise<{ message: string }> {
      passwordsAllowed();
      const row = await usableToken(token, 'reset');
      const passwordHash = await hashPassword(password);
      const now = config.now().toISOString();
      const email = await db.transaction().execute(async (trx) => {
        if (!(await createEmailTokenRepo(trx).consume(row.id, now))) throw usedTokenError();
        const userRepo = createUserRepo(trx);
        const user = await userRepo.findById(row.user_id);
        if (!user) throw usedTokenError();
        await userRepo.update(user.id, { password_hash: passwordHash, email_verified_at: user.email_verified_at ?? now, updated_at: now });
        await createEmailTokenRepo(trx).retireAll(user.id, 'reset', now);
        await createEmailTokenRepo(trx).retireAll(user.id, 'verify', now);
        await createSessionRepo(trx).deleteForUser(user.id);
        return user.email;
      });
      mail.send(accountMails.passwordChanged(email));
      return { message: 'Your password has been changed and every session was signed out. Sign in with the new password.' };
    },

    async me(principal: Principal) {
      if (principal.kind !== 'user') throw new UnauthorizedError();
      const user = await users.findById(principal.userId);
      if (!user) throw new UnauthorizedError('Your account no longer exists');
      return { user: toUser(user), teams: (await teams.listForUser(user.id)).map(toTeamWithRole) };
    },

    /** The first team (caller as owner) and project, once: checked and written in one transaction. */
    async onboarding(principal: Principal, input: { teamName: string; projectName: string }): Promise<ResponseOf<'auth.onboarding'>> {
      if (principal.kind !== 'user') throw new UnauthorizedError();
      const userId = principal.userId;
      // One transaction (the services' repos join it): the check and both writes, or nothing.
      const { team, project } = await inTransaction(db, async () => {
        if ((await teams.listForUser(userId)).length > 0) {
          throw new ConflictError('Onboarding is already done: you belong to a team. Create more teams with POST /api/v1/teams.');
        }
        const team = await teams.createWithOwner(userId, input.teamName);
        return { team, project: await projects.createWithSettings(team.id, input.projectName) };
      });
      return { team: { id: team.id, name: team.name, createdAt: team.created_at }, project: toProject(project) };
    },
  };
}
export type AccountService = ReturnType<typeof createAccountService>;
