import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

let emailSeq = 0;
/** An address no other test uses, for sign-ups and invitations. */
export const uniqueEmail = (prefix = 'person') => `${prefix}-${Date.now()}-${++emailSeq}@example.test`;

/** Test support: the mails the outbox mailer wrote to `<dataDir>/outbox/` (docs/decisions.md §2). */
export interface OutboxMail {
  to: string;
  subject: string;
  text: string;
  html: string;
  createdAt: string;
}

export function readOutbox(dataDir: string): OutboxMail[] {
  const dir = join(dataDir, 'outbox');
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((f) => JSON.parse(readFileSync(join(dir, f), 'utf8')) as OutboxMail);
}

/**
 * The newest mail to `to` whose subject matches, waiting briefly because mails leave in the
 * background. Throws with what the outbox holds when none arrives.
 */
export async function waitForMail(dataDir: string, to: string, subject: RegExp, opts: { after?: number } = {}): Promise<OutboxMail> {
  const deadline = Date.now() + 5_000;
  for (;;) {
    const mails = readOutbox(dataDir).slice(opts.after ?? 0).filter((m) => m.to === to && subject.test(m.subject));
    if (mails.length > 0) return mails[mails.length - 1];
    if (Date.now() > deadline) throw new Error(`no mail to ${to} matching ${subject}; outbox: ${JSON.stringify(readOutbox(dataDir).map((m) => [m.to, m.subject]))}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** The token of the `{app_url}/<page>?token=…` link in a mail's text. */
export function tokenFrom(mail: OutboxMail, page: string): { url: string; token: string } {
  const m = new RegExp(`(https?://\\S+/${page}\\?token=([^\\s]+))`).exec(mail.text);
  if (!m) throw new Error(`no /${page} link in mail "${mail.subject}": ${mail.text}`);
  return { url: m[1], token: decodeURIComponent(m[2]) };
}
