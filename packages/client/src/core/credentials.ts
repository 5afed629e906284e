import { KeyValidationError } from './errors.js';
import { checkApiKey, SESSION_COOKIE } from '@testreport/contract/core';

export { SESSION_COOKIE };

/** Accepts a bare session token or `testreport_session=<token>` and returns the Cookie header value. */
export function normalizeSessionCookie(value: string): string {
  const trimmed = value.trim().replace(/^cookie:\s*/i, '');
  const pair = trimmed.split(';')[0]!.trim();
  return pair.startsWith(`${SESSION_COOKIE}=`) ? pair : `${SESSION_COOKIE}=${pair}`;
}

/** The `testreport_session=<token>` pair of a login answer, or undefined when it set none. */
export function sessionCookieFrom(headers: Headers): string | undefined {
  const all = typeof headers.getSetCookie === 'function' ? headers.getSetCookie() : splitSetCookie(headers.get('set-cookie'));
  for (const line of all) {
    const pair = line.split(';')[0]!.trim();
    if (pair.startsWith(`${SESSION_COOKIE}=`) && pair.length > SESSION_COOKIE.length + 1) return pair;
  }
  return undefined;
}

function splitSetCookie(value: string | null): string[] {
  // A joined header separates cookies with ", " — but Expires dates hold ", " too.
  return value ? value.split(/,\s*(?=[^;=\s]+=)/) : [];
}

/** Spec rule 8: a key that cannot be right never reaches the network. */
export function assertUsableKey(key: string | undefined): string {
  const problem = checkApiKey(key);
  if (problem) throw new KeyValidationError(problem);
  return key!;
}
