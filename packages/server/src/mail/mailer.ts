import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import nodemailer from 'nodemailer';
import { newId } from '../lib/ids.js';
import type { Logger } from '../lib/logger.js';

export interface Mail {
  to: string;
  subject: string;
  text: string;
  html: string;
}
export interface Mailer {
  send(mail: Mail): Promise<void>;
}

/**
 * Decisions §2: SMTP when TESTREPORT_SMTP_URL is set; otherwise each mail becomes one JSON file in
 * `<data-dir>/outbox/` (the text holds the full link), so self-hosters and tests need no mail server.
 */
export function createMailer(opts: { smtpUrl: string | null; dataDir: string; logger: Logger; now: () => Date; from?: string }): Mailer {
  const from = opts.from ?? process.env.TESTREPORT_MAIL_FROM ?? 'testreport <no-reply@testreport.local>';
  if (opts.smtpUrl) {
    const transport = nodemailer.createTransport(opts.smtpUrl);
    return {
      async send(mail) {
        await transport.sendMail({ from, ...mail });
      },
    };
  }
  const dir = join(opts.dataDir, 'outbox');
  return {
    async send(mail) {
      mkdirSync(dir, { recursive: true });
      const createdAt = opts.now().toISOString();
      const file = join(dir, `${createdAt.replace(/[:.]/g, '-')}-${newId()}.json`);
      writeFileSync(file, JSON.stringify({ ...mail, createdAt }, null, 2), { mode: 0o600 });
      opts.logger.info(`mail to ${mail.to} ("${mail.subject}") written to ${file}`);
    },
  };
}
