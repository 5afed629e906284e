import type { Handlers } from '../http/handler.js';
import { clearSessionCookie, setSessionCookie } from './cookie.js';

export const accountsHandlers: Handlers<'auth.signup' | 'auth.verifyEmail' | 'auth.login' | 'auth.logout' | 'auth.forgotPassword' | 'auth.resetPassword' | 'auth.me' | 'auth.onboarding'> = {
  'auth.signup': async ({ body, services }) => services.accounts.signup(body),
  'auth.verifyEmail': async ({ body, services }) => services.accounts.verifyEmail(body.token),
  'auth.login': async ({ body, services, c }) => {
    const user = await services.accounts.checkCredentials(body.email, body.password);
    const session = await services.sessions.create(user.id);
    setSessionCookie(c, services.deps.config, session.token);
    return { user, expiresAt: session.expiresAt };
  },
  'auth.logout': async ({ principal, services, c }) => {
    if (principal.kind === 'user') await services.sessions.revoke(principal.sessionId);
    clearSessionCookie(c, services.deps.config);
    return { message: 'Signed out' };
  },
  'auth.forgotPassword': async ({ body, services }) => services.accounts.forgotPassword(body.email),
  'auth.resetPassword': async ({ body, services, c }) => {
    const out = await services.accounts.resetPassword(body.token, body.password);
    clearSessionCookie(c, services.deps.config);
    return out;
  },
  'auth.me': async ({ principal, services }) => services.accounts.me(principal),
  'auth.onboarding': async ({ body, principal, services }) => services.accounts.onboarding(principal, body),
};
