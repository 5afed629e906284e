import type { ErrorCode, ValidationReason } from '@testreport/contract';

/** Every error the server answers with is one of these; `http/errorHandler.ts` maps them to bodies. */
export class AppError extends Error {
  constructor(
    readonly status: number,
    readonly code: ErrorCode,
    message: string,
    readonly details?: Record<string, unknown>,
    readonly headers?: Record<string, string>,
  ) {
    super(message);
    this.name = new.target.name;
  }
}

export class ValidationError extends AppError {
  constructor(field: string, reason: ValidationReason, message?: string, extra?: Record<string, unknown>) {
    super(400, 'VALIDATION_ERROR', message ?? `${field}: ${reason.replace(/_/g, ' ')}`, { field, reason, ...extra });
  }
}
export class UnauthorizedError extends AppError {
  constructor(message = 'Authentication is missing or invalid') {
    super(401, 'UNAUTHORIZED', message);
  }
}
export class EmailNotVerifiedError extends AppError {
  constructor(message = 'Verify your e-mail address before using the platform') {
    super(403, 'EMAIL_NOT_VERIFIED', message);
  }
}
export class ForbiddenError extends AppError {
  constructor(message = 'Your role or scope does not allow this action') {
    super(403, 'FORBIDDEN', message);
  }
}
export class NotFoundError extends AppError {
  constructor(what = 'Resource') {
    super(404, 'NOT_FOUND', `${what} not found`);
  }
}
export class ConflictError extends AppError {
  constructor(message: string, details?: Record<string, unknown>) {
    super(409, 'CONFLICT', message, details);
  }
}
export class PayloadTooLargeError extends AppError {
  constructor(message: string, details?: Record<string, unknown>) {
    super(413, 'PAYLOAD_TOO_LARGE', message, details);
  }
}
export class RateLimitedError extends AppError {
  constructor(readonly retryAfterSeconds: number, headers: Record<string, string>) {
    super(429, 'RATE_LIMITED', `Rate limit exceeded; retry in ${retryAfterSeconds} s`, { retryAfter: retryAfterSeconds }, {
      ...headers,
      'Retry-After': String(retryAfterSeconds),
    });
  }
}
/**
 * Outages: nothing of the request was written, and the same request is worth sending again after
 * `Retry-After` seconds (the SDK, reporter and CLI do). See `lib/outage.ts` for what counts as one.
 */
export class ServiceUnavailableError extends AppError {
  constructor(what: string, retryAfterSeconds: number) {
    super(503, 'SERVICE_UNAVAILABLE', `${what} cannot be reached right now; retry in ${retryAfterSeconds} s`, { retryAfter: retryAfterSeconds }, {
      'Retry-After': String(retryAfterSeconds),
    });
  }
}
export class InsufficientStorageError extends AppError {
  constructor(retryAfterSeconds: number) {
    super(507, 'INSUFFICIENT_STORAGE', `The server's disk is full; nothing was stored. Retry in ${retryAfterSeconds} s`, { retryAfter: retryAfterSeconds }, {
      'Retry-After': String(retryAfterSeconds),
    });
  }
}
