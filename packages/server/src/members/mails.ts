import { composeMail } from '../accounts/mailing.js';
import type { Mail } from '../mail/mailer.js';

export const invitationMail = (to: string, v: { teamName: string; inviter: string; role: string; url: string }): Mail =>
  composeMail(to, `You are invited to join ${v.teamName} on testreport`, [
    `${v.inviter} invited you to join the team "${v.teamName}" on testreport as ${v.role}.`,
    'Open the link below within 7 days and sign in with this e-mail address (or sign up with it first) to accept.',
  ], { label: 'Accept the invitation', url: v.url });
