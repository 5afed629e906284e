import type { Handlers } from '../http/handler.js';
import { notImplemented } from '../http/notImplemented.js';

export const accountsHandlers: Handlers<'auth.signup' | 'auth.verifyEmail' | 'auth.login' | 'auth.logout' | 'auth.forgotPassword' | 'auth.resetPassword' | 'auth.me' | 'auth.onboarding'> = {
  'auth.signup': notImplemented('auth.signup'),
  'auth.verifyEmail': notImplemented('auth.verifyEmail'),
  'auth.login': notImplemented('auth.login'),
  'auth.logout': notImplemented('auth.logout'),
  'auth.forgotPassword': notImplemented('auth.forgotPassword'),
  'auth.resetPassword': notImplemented('auth.resetPassword'),
  'auth.me': notImplemented('auth.me'),
  'auth.onboarding': notImplemented('auth.onboarding'),
};
