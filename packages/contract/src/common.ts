import { z } from 'zod';
import { LIMITS } from './limits.js';

export { LIMITS };

// Zod-free, so the reporter's mapping can cut text the way the server does.
import { truncate } from './text.js';
export { TRUNCATION_MARKER, truncate } from './text.js';

/** With the u flag a surrogate pair is one code point, so this matches only a lone half. */
const LONE_SURROGATE = /[\uD800-\uDFFF]/gu;

/** Replaces lone surrogates with U+FFFD, as `String.prototype.toWellFormed` does (Node ≥ 20). */
export const toWellFormed = (value: string): string => value.replace(LONE_SURROGATE, '\uFFFD');
export const hasLoneSurrogate = (value: string): boolean => value.search(LONE_SURROGATE) !== -1;

export const id = z.string().min(1).max(100);
export const timestamp = z.string().meta({ format: 'date-time' });
/** An ISO 8601 timestamp as input, normalised to `toISOString()` form. */
export const timestampInput = z.iso.datetime({ offset: true }).transform((v) => new Date(v).toISOString());

export const cappedText = (max: number) => z.string().transform((v) => truncate(v, max));
export const title = z.string().min(1).transform((v) => truncate(v, LIMITS.titleChars));
export const name = z.string().trim().min(1).max(LIMITS.nameChars);

export const durationMs = z.number().finite().nonnegative();
export const count = z.number().int().nonnegative();

/** Query-string helpers: everything arrives as text. */
export const queryInt = (min: number, max: number) =>
  z.coerce.number().int().min(min).max(max);
export const queryBool = z
  .enum(['true', 'false', '1', '0'])
  .transform((v) => v === 'true' || v === '1');

export const pageQuery = {
  limit: queryInt(1, LIMITS.pageMax).default(LIMITS.pageDefault),
  offset: queryInt(0, Number.MAX_SAFE_INTEGER).default(0),
};

export const paged = <T extends z.ZodType>(item: T) =>
  z.object({ data: z.array(item), total: z.number().int(), limit: z.number().int(), offset: z.number().int() });
export const list = <T extends z.ZodType>(item: T) => z.object({ data: z.array(item) });

export const successResponse = z.object({ success: z.boolean(), message: z.string() });

export const idParam = z.object({ id });

export const ERROR_CODES = [
  'VALIDATION_ERROR',
  'UNAUTHORIZED',
  'EMAIL_NOT_VERIFIED',
  'FORBIDDEN',
  'NOT_FOUND',
  'CONFLICT',
  'PAYLOAD_TOO_LARGE',
  'RATE_LIMITED',
  'INTERNAL_ERROR',
  // Outages (a database restarting, the object store away, a full disk): answered with Retry-After,
  // nothing was written, and clients retry the same request (docs/api.md).
  'SERVICE_UNAVAILABLE',
  'INSUFFICIENT_STORAGE',
] as const;
export type ErrorCode = (typeof ERROR_CODES)[number];

export const VALIDATION_REASONS = [
  'required',
  'invalid_type',
  'invalid_value',
  'too_long',
  'out_of_range',
  'unsupported_format',
] as const;
export type ValidationReason = (typeof VALIDATION_REASONS)[number];

export const errorBody = z.object({
  error: z.object({
    code: z.enum(ERROR_CODES),
    message: z.string(),
    details: z.object({ field: z.string().optional(), reason: z.string().optional() }).catchall(z.unknown()).optional(),
  }),
}).meta({ id: 'Error' });
export type ErrorBody = z.infer<typeof errorBody>;
