import { createHmac } from 'node:crypto';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { checkWebhookUrlShape, guardedLookup } from './ssrf.js';

export const USER_AGENT = 'testreport-webhooks/1';

export interface SendInput {
  url: string;
  body: string;
  event: string;
  deliveryId: string;
  secret: string | null;
  headers: Record<string, string>;
  timeoutMs: number;
  allowPrivate: boolean;
}

export interface SendOutcome {
  ok: boolean;
  statusCode: number | null;
  error: string | null;
  /** Seconds or HTTP date of a Retry-After answer, as sent. */
  retryAfter: string | null;
}

export const signBody = (secret: string, body: string) => createHmac('sha256', secret).update(body).digest('hex');

/**
 * One POST of a delivery. The URL is re-checked, and the socket connects only to an address the
 * guarded lookup has just validated (no DNS rebinding). Redirects are never followed: a 3xx is a
 * failed attempt. The whole exchange, connect included, is bounded by `timeoutMs`.
 */
export function sendDelivery(input: SendInput): Promise<SendOutcome> {
  let url: URL;
  try {
    url = checkWebhookUrlShape(input.url, input.allowPrivate);
  } catch (err) {
    return Promise.resolve({ ok: false, statusCode: null, error: (err as Error).message, retryAfter: null });
  }
  const headers: Record<string, string> = {
    ...input.headers,
    'Content-Type': 'application/json',
    'User-Agent': USER_AGENT,
    'X-Testreport-Event': input.event,
    'X-Testreport-Delivery': input.deliveryId,
    'Content-Length': String(Buffer.byteLength(input.body)),
  };
  if (input.secret) headers['X-Testreport-Signature'] = signBody(input.secret, input.body);

  return new Promise((resolve) => {
    const signal = AbortSignal.timeout(input.timeoutMs);
    const request = url.protocol === 'https:' ? httpsRequest : httpRequest;
    const req = request(url, { method: 'POST', headers, agent: false, lookup: guardedLookup(input.allowPrivate) as never, signal }, (res: IncomingMessage) => {
      res.resume(); // the answer's body is not used; read it so the socket closes cleanly
      const code = res.statusCode ?? 0;
      const ok = code >= 200 && code < 300;
      const error = ok ? null : code >= 300 && code < 400 ? `redirect (${code}) not followed` : `HTTP ${code}`;
      const retryAfter = typeof res.headers['retry-after'] === 'string' ? res.headers['retry-after'] : null;
      res.on('end', () => resolve({ ok, statusCode: code, error, retryAfter }));
      res.on('error', () => resolve({ ok, statusCode: code, error, retryAfter }));
    });
    req.on('error', (err: NodeJS.ErrnoException) => {
      const timedOut = signal.aborted;
      resolve({ ok: false, statusCode: null, error: timedOut ? `timed out after ${input.timeoutMs} ms` : err.message || err.code || 'request failed', retryAfter: null });
    });
    req.end(input.body);
  });
}
