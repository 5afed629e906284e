import type { MiddlewareHandler } from 'hono';
import { RATE_GROUPS, type RateGroup } from '@testreport/contract';
import { principalScope } from '../authz/principal.js';
import { RateLimitedError } from '../lib/errors.js';
import './context.js';

export const WINDOW_MS = 60_000;

/** Counts one hit in the bucket's current fixed window and returns that window after the hit. */
export interface WindowCounter {
  hit(bucket: string, now: number): Promise<{ start: number; count: number }>;
}

/** Counters of one process: enough where one server owns its database (embedded SQLite). */
export function createMemoryCounter(): WindowCounter {
  const windows = new Map<string, { start: number; count: number }>();
  let lastSweep = 0;
  return {
    async hit(bucket, t) {
      if (t - lastSweep >= WINDOW_MS) {
        lastSweep = t;
        for (const [k, w] of windows) if (t - w.start >= WINDOW_MS) windows.delete(k);
      }
      let w = windows.get(bucket);
      if (!w || t - w.start >= WINDOW_MS) {
        w = { start: t, count: 0 };
        windows.set(bucket, w);
      }
      w.count++;
      return { ...w };
    },
  };
}

/**
 * Fixed 60-second windows per caller and group (spec part 8, docs/decisions.md §9). The counter is the
 * database's when several servers share it, so the limit holds across all of them.
 */
export function createRateLimiter(now: () => Date, counter: WindowCounter) {
  return {
    /** Counts one request; returns the headers to send, or throws RateLimitedError with Retry-After. */
    async hit(caller: string, group: RateGroup): Promise<Record<string, string>> {
      const limit = RATE_GROUPS[group];
      if (!Number.isFinite(limit)) return {};
      const t = now().getTime();
      const w = await counter.hit(`${caller}|${group}`, t);
      const resetSeconds = Math.max(1, Math.ceil((w.start + WINDOW_MS - t) / 1000));
      if (w.count > limit) {
        throw new RateLimitedError(resetSeconds, {
          'RateLimit-Limit': String(limit),
          'RateLimit-Remaining': '0',
          'RateLimit-Reset': String(resetSeconds),
        });
      }
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
      for (const [k, v] of Object.entries(await l.hit(caller, group))) c.header(k, v);
    }
    await next();
  };
}
