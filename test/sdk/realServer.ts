import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { TestServer, TestUser } from '@testreport/server/testing';
import { TestReportClient, type ClientOptions } from '@testreport/client';

/**
 * Clients against the in-process server of packages/server/src/testing/harness.ts. Every answer is
 * parsed with the contract's schema, so a server that drifts from the contract fails these tests.
 */
export function clientFor(t: TestServer, auth: string | TestUser | null, options: ClientOptions = {}) {
  const credentials = auth === null ? { apiKey: '' } : typeof auth === 'string' ? { apiKey: auth } : { sessionCookie: auth.cookie };
  return new TestReportClient({ url: t.url, validateResponses: true, ...credentials, ...options });
}

/** The token in the newest mail to `to` (written to <data-dir>/outbox when no SMTP is set). */
export function mailedToken(t: TestServer, to: string): string {
  const dir = join(t.dataDir, 'outbox');
  const mails = readdirSync(dir)
    .sort()
    .map((f) => JSON.parse(readFileSync(join(dir, f), 'utf8')) as { to: string; text: string })
    .filter((m) => m.to === to);
  const match = /token=([^\s&"<>]+)/.exec(mails.at(-1)?.text ?? '');
  if (!match) throw new Error(`no mail with a token to ${to}`);
  return decodeURIComponent(match[1]!);
}
