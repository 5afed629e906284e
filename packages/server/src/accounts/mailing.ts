import { afterCommit } from '../db/transaction.js';
import type { Logger } from '../lib/logger.js';
import type { Mail, Mailer } from '../mail/mailer.js';

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);

/** One account or team mail: a few paragraphs and, usually, one link the reader must open. */
export function composeMail(to: string, subject: string, paragraphs: string[], link?: { label: string; url: string }): Mail {
  const text = [...paragraphs, ...(link ? [`${link.label}: ${link.url}`] : [])].join('\n\n') + '\n';
  const html =
    paragraphs.map((p) => `<p>${escapeHtml(p)}</p>`).join('\n') +
    (link ? `\n<p><a href="${escapeHtml(link.url)}">${escapeHtml(link.label)}</a></p>\n<p>${escapeHtml(link.url)}</p>` : '');
  return { to, subject, text, html };
}

/**
 * Mails leave in the background: the answer must not wait for (or reveal) an SMTP round trip,
 * because its duration would tell whether an address has an account. A failed send is logged;
 * the user can ask again (signup, forgot-password, a re-sent invitation).
 */
export function createMailOut(mailer: Mailer, logger: Logger) {
  return {
    send(mail: Mail): void {
      // Inside a transaction (an idempotent request), only once it commits: a rolled-back signup or
      // invitation must not mail a link to a token that was never stored.
      afterCommit(() => {
        mailer.send(mail).catch((err: unknown) => logger.error(`could not send "${mail.subject}" to ${mail.to}`, err));
      });
    },
  };
}
export type MailOut = ReturnType<typeof createMailOut>;
