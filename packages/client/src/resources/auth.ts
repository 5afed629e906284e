import type { BodyOf, ResponseOf } from '@testreport/contract';
import { sessionCookieFrom } from '../core/credentials.js';
import { AuthenticationError } from '../core/errors.js';
import type { RequestOptions } from '../core/requestOptions.js';
import { APIResource } from '../core/resource.js';

export type LoginResult = ResponseOf<'auth.login'> & {
  /** `testreport_session=<token>`: the client now sends it; store it to reuse the session later. */
  sessionCookie: string;
};

/** Account flows on {app_url}/auth. */
export class Auth extends APIResource {
  /** Creates an unverified account and mails a verification link. */
  signup(body: BodyOf<'auth.signup'>, opts?: RequestOptions) {
    return this.client.request('auth.signup', { body }, opts);
  }
  verifyEmail(body: BodyOf<'auth.verifyEmail'>, opts?: RequestOptions) {
    return this.client.request('auth.verifyEmail', { body }, opts);
  }
  /** Signs in; the client uses the session for every later call. */
  async login(body: BodyOf<'auth.login'>, opts?: RequestOptions): Promise<LoginResult> {
    const res = await this.client.call('auth.login', { body }, opts);
    const sessionCookie = sessionCookieFrom(res.headers);
    if (!sessionCookie) {
      throw new AuthenticationError({
        status: res.status,
        code: 'UNAUTHORIZED',
        message: 'The server accepted the login but set no testreport_session cookie',
        requestId: res.headers.get('x-request-id') ?? undefined,
      });
    }
    this.client.setSessionCookie(sessionCookie);
    return { ...res.data, sessionCookie };
  }
  /** Ends the session on the server and forgets it here. */
  async logout(opts?: RequestOptions) {
    try {
      const res = await this.client.request('auth.logout', {}, opts);
      this.client.setSessionCookie(undefined);
      return res;
    } catch (err) {
      // A session the server no longer knows is as good as ended.
      if (err instanceof AuthenticationError) this.client.setSessionCookie(undefined);
      throw err;
    }
  }
  /** Same answer whether or not the address has an account. */
  forgotPassword(body: BodyOf<'auth.forgotPassword'>, opts?: RequestOptions) {
    return this.client.request('auth.forgotPassword', { body }, opts);
  }
  /** Sets a new password with the mailed token; other sessions end. */
  resetPassword(body: BodyOf<'auth.resetPassword'>, opts?: RequestOptions) {
    return this.client.request('auth.resetPassword', { body }, opts);
  }
  me(opts?: RequestOptions) {
    return this.client.request('auth.me', {}, opts);
  }
  /** The first team and project of a verified user without a team. */
  onboarding(body: BodyOf<'auth.onboarding'>, opts?: RequestOptions) {
    return this.client.request('auth.onboarding', { body }, opts);
  }
}
