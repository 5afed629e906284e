import type { Context, Hono } from 'hono';
import { forgotPassword, login, signup } from '@testreport/contract';
import { clearSessionCookie, setSessionCookie } from '../accounts/cookie.js';
import '../http/context.js';
import { parseWith } from '../http/validation.js';
import { AppError } from '../lib/errors.js';
import type { Services } from '../services.js';
import { ForgotPasswordPage, SignInPage, SignUpPage, type SignInMethods } from './pages/auth.js';
import { render } from './render.js';
import { safeNext, userOf } from './session.js';

export const LAST_PROJECT_COOKIE = 'testreport_project';

/** The text fields of a parsed form (files dropped). */
export function stringFields(body: Record<string, unknown>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(body)) if (typeof v === 'string') out[k] = v;
  return out;
}

/** A form's text fields (files and absent fields are left out). */
export const formFields = async (c: Context) => stringFields(await c.req.parseBody());

/** Sign-in forms share the API's per-IP `auth` limit, so the form is no way around it. */
export function limitAuth(c: Context, services: Services) {
  if (services.deps.config.rateLimits) services.rateLimiter.hit(`ip:${c.get('clientIp')}`, 'auth');
}

const messageOf = (err: unknown) => (err instanceof AppError ? err.message : 'Unexpected error');

export const signInMethods = (services: Services): SignInMethods => ({ ssoName: services.sso?.name ?? null, passwordLogin: services.deps.config.passwordLogin });

/**
 * Sign in at {app_url}, sign up, forgotten password, sign out: plain forms over the account services.
 * With `--password-login=off` the password forms are not served at all (their paths answer 404).
 */
export function mountAuthPages(app: Hono, services: Services) {
  app.post('/signout', async (c) => {
    const user = await userOf(c, services);
    if (user && user !== 'unverified') await services.sessions.revoke(user.sessionId);
    clearSessionCookie(c, services.deps.config);
    return c.redirect('/', 303);
  });
  if (!services.deps.config.passwordLogin) return;

  app.post('/signin', async (c) => {
    const form = await formFields(c);
    const next = safeNext(form.next);
    try {
      limitAuth(c, services);
      const body = parseWith(login, { email: form.email ?? '', password: form.password ?? '' });
      const user = await services.accounts.checkCredentials(body.email, body.password);
      const session = await services.sessions.create(user.id);
      setSessionCookie(c, services.deps.config, session.token);
      return c.redirect(next, 303);
    } catch (err) {
      const status = err instanceof AppError ? err.status : 500;
      if (!(err instanceof AppError)) services.deps.logger.error('sign-in failed', err);
      const error = status === 400 ? 'Enter an e-mail address and a password.' : messageOf(err);
      return render(c, services, <SignInPage next={next} email={form.email} error={error} methods={signInMethods(services)} />, status);
    }
  });

  app.get('/signup', (c) => render(c, services, <SignUpPage />));
  app.post('/signup', async (c) => {
    const form = await formFields(c);
    try {
      limitAuth(c, services);
      const body = parseWith(signup, { email: form.email ?? '', password: form.password ?? '', ...(form.name ? { name: form.name } : {}) });
      const out = await services.accounts.signup(body);
      return render(c, services, <SignUpPage info={out.message} />, 201);
    } catch (err) {
      return render(c, services, <SignUpPage error={messageOf(err)} />, err instanceof AppError ? err.status : 500);
    }
  });

  app.get('/forgot-password', (c) => render(c, services, <ForgotPasswordPage />));
  app.post('/forgot-password', async (c) => {
    const form = await formFields(c);
    try {
      limitAuth(c, services);
      const out = await services.accounts.forgotPassword(parseWith(forgotPassword, { email: form.email ?? '' }).email);
      return render(c, services, <ForgotPasswordPage info={out.message} />);
    } catch (err) {
      return render(c, services, <ForgotPasswordPage error={messageOf(err)} />, err instanceof AppError ? err.status : 500);
    }
  });
}
