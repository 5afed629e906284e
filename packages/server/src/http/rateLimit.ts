import type { MiddlewareHandler } from 'hono';
import { RATE_GROUPS, type RateGroup } from '@testreport/contract';
import { principalScope } from '../authz/principal.js';
import { RateLimitedError } from '../lib/errors.js';
import './context.js';

const WINDOW_MS = 60_000;

/**
 * Fixed 60-second windows per caller and group (spec part 8, decisions §9). In memory: one server
 * process owns its counters; a multi-process deployment would move this behind the same interface.
 */
export function createRateLimiter(now: () => Date) {
  const windows = new Map<string, { start: number; count: number }>();
  let lastSweep = 0;

  function sweep(t: number) {
    if (t - lastSweep < WINDOW_MS) return;
    lastSweep = t;
    for (const [k, w] of windows) if (t - w.start >= WINDOW_MS) windows.delete(k);
  }

  return {
    /** Counts one request; returns the headers to send, or throws RateLimitedError with Retry-After. */
    hit(caller: string, group: RateGroup): Record<string, string> {
      const limit = RATE_GROUPS[group];
      if (!Number.isFinite(limit)) return {};
      const t = now().getTime();
      sweep(t);
      const key = `${caller}|${group}`;
      let w = windows.get(key);
      if (!w || t - w.start >= WINDOW_MS) {
        w = { start: t, count: 0 };
        windows.set(key, w);
      }
      const resetSeconds = Math.max(1, Math.ceil((w.start + WINDOW_MS - t) / 1000));
      if (w.count >= limit) {
        throw new RateLimitedError(resetSeconds, {
          'RateLimit-Limit': String(limit),
          'RateLimit-Remaining': '0',
          'RateLimit-Reset': String(resetSeconds),
        });
      }
      w.count++;
      return {
        'RateLimit-Limit': String(limit),
        'RateLimit-Remaining': String(limit - w.count),
        'RateLimit-Reset': String(resetSeconds),
      };
    },
  };
}
export type RateLimiter = ReturnType<typeof createRateLimiter>;

/**
 * Counts the request against its rate-limit group: per IP for the auth group (no caller is known
 * yet), per API key or user otherwise. Sends the RateLimit-* headers; a 429 is thrown.
 */
export function rateLimit(group: RateGroup, limiter: () => RateLimiter | null): MiddlewareHandler {
  return async function rateLimit(c, next) {
    const l = limiter();
    if (l) {
      const caller = group === 'auth' ? `ip:${c.get('clientIp')}` : principalScope(c.get('principal'));
      for (const [k, v] of Object.entries(l.hit(caller, group))) c.header(k, v);
    }
    await next();
  };
}
