import type { KeyProblem } from '@testreport/contract';
import { KEY_PROBLEM_MESSAGES } from '@testreport/contract/core';

export interface ErrorDetails {
  field?: string;
  reason?: string;
  [key: string]: unknown;
}

export interface ApiErrorInit {
  status: number;
  code: string;
  message: string;
  details?: ErrorDetails;
  requestId?: string;
  /** `POST /runs`: which call failed, so a log line is useful on its own. */
  operation?: string;
  headers?: Headers;
}

/** Folds code, field, status and request id into one line a CI log can show as is. */
function oneLine(init: ApiErrorInit): string {
  const text = init.message.replace(/\s*[\r\n]+\s*/g, ' ').trim() || 'Request failed';
  const tags = [init.code];
  if (init.details?.field) tags.push(`field ${init.details.field}`);
  if (init.details?.reason) tags.push(`reason ${init.details.reason}`);
  const where = [init.status ? `HTTP ${init.status}` : '', init.operation ?? '', init.requestId ? `request ${init.requestId}` : '']
    .filter(Boolean)
    .join(', ');
  return `${text} [${tags.join(', ')}]${where ? ` (${where})` : ''}`;
}

/**
 * The base of every error the SDK throws on purpose, so a caller can tell "testreport said no" (or
 * could not be reached) from a bug with one `instanceof TestReportError`. `name` is the subclass's.
 */
export class TestReportError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** An error answer of the API: `{"error":{code,message,details}}` plus the HTTP status and request id. */
export class ApiError extends TestReportError {
  readonly status: number;
  readonly code: string;
  readonly details: ErrorDetails | undefined;
  readonly requestId: string | undefined;
  /** The server's message without the status/code decoration of `message`. */
  readonly serverMessage: string;
  readonly headers: Headers | undefined;
  /** `POST /runs`: the call that failed. */
  readonly operation: string | undefined;

  constructor(init: ApiErrorInit) {
    super(oneLine(init));
    this.status = init.status;
    this.code = init.code;
    this.details = init.details;
    this.requestId = init.requestId;
    this.serverMessage = init.message;
    this.headers = init.headers;
    this.operation = init.operation;
  }
}

export class ValidationError extends ApiError {}
export class AuthenticationError extends ApiError {}
/** 403: the role or the key's project does not allow the action; `code` is FORBIDDEN or EMAIL_NOT_VERIFIED. */
export class PermissionError extends ApiError {}
export class NotFoundError extends ApiError {}
export class ConflictError extends ApiError {}
export class PayloadTooLargeError extends ApiError {}
export class RateLimitError extends ApiError {
  /** Seconds the server asked us to wait (`Retry-After`), when it said. */
  readonly retryAfter: number | undefined;
  constructor(init: ApiErrorInit & { retryAfter?: number }) {
    super(init);
    this.retryAfter = init.retryAfter;
  }
}
export class ServerError extends ApiError {}

/** The request never got an HTTP answer: refused, reset, DNS failure, or the per-attempt time-out. */
export class ConnectionError extends TestReportError {
  readonly timedOut: boolean;
  constructor(message: string, opts: { cause?: unknown; timedOut?: boolean } = {}) {
    super(message, { cause: opts.cause });
    this.timedOut = opts.timedOut ?? false;
  }
}

/** The API key failed an offline check (spec rule 8); no request was made. */
export class KeyValidationError extends TestReportError {
  readonly problem: KeyProblem;
  constructor(problem: KeyProblem) {
    super(KEY_PROBLEM_MESSAGES[problem]);
    this.problem = problem;
  }
}

/** A key, password or cookie would have crossed plain http:// to a non-loopback host (docs/decisions.md §11). */
export class InsecureTransportError extends TestReportError {
  constructor(url: string) {
    super(
      `Refusing to send credentials over plain http:// to ${new URL(url).host}: use https://, or a loopback address ` +
        '(localhost, 127.0.0.1, ::1). On a trusted private network pass allowInsecureHttp: true (CLI --allow-insecure-http).',
    );
  }
}

const BY_STATUS: Record<number, typeof ApiError> = {
  400: ValidationError,
  401: AuthenticationError,
  403: PermissionError,
  404: NotFoundError,
  409: ConflictError,
  413: PayloadTooLargeError,
};

/** Seconds from a `Retry-After` header (delta-seconds or an HTTP date). */
export function parseRetryAfter(value: string | null, now = Date.now()): number | undefined {
  if (!value) return undefined;
  const trimmed = value.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Number(trimmed);
  const at = Date.parse(trimmed);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - now) / 1000));
}

/** Builds the typed error for a non-2xx answer; tolerates bodies that are not our envelope (proxies). */
export function errorFromResponse(status: number, headers: Headers, text: string, operation?: string): ApiError {
  let code = `HTTP_${status}`;
  let message = text.trim().slice(0, 300) || `HTTP ${status}`;
  let details: ErrorDetails | undefined;
  try {
    const parsed = JSON.parse(text) as { error?: { code?: unknown; message?: unknown; details?: unknown } };
    if (parsed && typeof parsed.error === 'object' && parsed.error) {
      if (typeof parsed.error.code === 'string') code = parsed.error.code;
      if (typeof parsed.error.message === 'string') message = parsed.error.message;
      if (parsed.error.details && typeof parsed.error.details === 'object') details = parsed.error.details as ErrorDetails;
    }
  } catch {
    // Not JSON (an HTML page from a proxy): keep the start of the text as the message.
    if (/^\s*</.test(text)) message = `HTTP ${status} from ${headers.get('server') ?? 'the server or a proxy'} (not a testreport error body)`;
  }
  const init: ApiErrorInit = { status, code, message, details, requestId: headers.get('x-request-id') ?? undefined, operation, headers };
  if (status === 429) {
    const retryAfter = parseRetryAfter(headers.get('retry-after')) ?? (typeof details?.retryAfter === 'number' ? details.retryAfter : undefined);
    return new RateLimitError({ ...init, retryAfter });
  }
  if (status >= 500) return new ServerError(init);
  const Cls = BY_STATUS[status] ?? ApiError;
  return new Cls(init);
}
