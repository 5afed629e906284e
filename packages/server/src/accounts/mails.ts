import type { Mail } from '../mail/mailer.js';
import { composeMail } from './mailing.js';

/** The account mails. Each link points at a page of {app_url} that posts the token to the API. */
export const accountMails = {
  verify: (to: string, url: string): Mail =>
    composeMail(to, 'Verify your e-mail address for testreport', [
      'Welcome to testreport. Open the link below within 24 hours to verify your e-mail address; then sign in.',
      'If you did not sign up, ignore this mail: the account stays unusable without verification.',
    ], { label: 'Verify your e-mail address', url }),

  alreadyRegistered: (to: string, appUrl: string): Mail =>
    composeMail(to, 'Someone tried to sign up with your e-mail address', [
      'Someone (perhaps you) tried to create a testreport account with this address, but it already has one. Nothing was changed.',
      `Sign in at ${appUrl}. If you forgot your password, ask for a reset link on the sign-in page.`,
    ]),

  /** Re-signup of an unverified account: whoever controls the mailbox chooses the password. */
  finishSignup: (to: string, url: string): Mail =>
    composeMail(to, 'Finish setting up your testreport account', [
      'An account for this address is waiting for verification. Choose your password with the link below (valid for 1 hour); doing so also verifies the address.',
      'If you did not sign up, ignore this mail.',
    ], { label: 'Choose your password', url }),

  reset: (to: string, url: string): Mail =>
    composeMail(to, 'Reset your testreport password', [
      'Open the link below within 1 hour to choose a new password. Setting it signs out every session of your account.',
      'If you did not ask for this, ignore this mail: your password stays as it is.',
    ], { label: 'Choose a new password', url }),

  passwordChanged: (to: string): Mail =>
    composeMail(to, 'Your testreport password was changed', [
      'The password of your testreport account was just changed and every session was signed out.',
      'If this was not you, ask for a reset link on the sign-in page at once.',
    ]),
};
