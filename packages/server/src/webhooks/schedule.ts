/** Retries after the first attempt (spec part 6: up to 3). */
export const MAX_RETRIES = 3;
/** A receiver's Retry-After is honoured up to this long, so one receiver cannot park a delivery for days. */
export const MAX_RETRY_AFTER_MS = 60 * 60 * 1000;

/**
 * Delay before retry `retry` (1-based): base, 4×base, 16×base (docs/decisions.md §8), each ±10% so many
 * deliveries failing together do not retry in lock-step. A longer Retry-After wins, within its cap.
 */
export function retryDelayMs(retry: number, baseMs: number, retryAfter: string | null, now: Date, random = Math.random): number {
  const backoff = baseMs * 4 ** (retry - 1);
  const jittered = Math.round(backoff * (0.9 + 0.2 * random()));
  const asked = retryAfterMs(retryAfter, now);
  return asked === null ? jittered : Math.max(jittered, Math.min(asked, MAX_RETRY_AFTER_MS));
}

function retryAfterMs(value: string | null, now: Date): number | null {
  if (!value) return null;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, at - now.getTime());
}
