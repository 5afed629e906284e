import { randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import pRetry, { AbortError } from 'p-retry';
import type { Agent, Dispatcher } from 'undici';
import { ApiError, ConflictError, ConnectionError, RateLimitError, ServerError, errorFromResponse, parseRetryAfter } from './errors.js';
import { nodeExchange, toHeaders } from './nodeHttp.js';

/** JSON text, or a stream of bytes made fresh for each attempt (uploads). */
export type RequestBody = string | AsyncIterable<Uint8Array>;

export interface FetchInit {
  method: string;
  headers: Record<string, string>;
  body?: string | ReadableStream<Uint8Array>;
  signal: AbortSignal;
  redirect: 'manual';
  duplex?: 'half';
}

/** What the transport needs of a response; undici's and the global fetch's both fit. */
export interface FetchResponse {
  status: number;
  headers: Headers;
  text(): Promise<string>;
}

/**
 * The fetch the transport calls. Injectable so tests (msw, which patches globalThis.fetch) and
 * special runtimes can supply their own: `fetch: (url, init) => globalThis.fetch(url, init)`.
 */
export type FetchLike = (url: string, init: FetchInit) => Promise<FetchResponse>;

export interface RetryInfo {
  operation: string;
  /** The attempt that failed (1 = the first try). */
  attempt: number;
  error: Error;
  delayMs: number;
}

export interface TransportConfig {
  fetch?: FetchLike;
  dispatcher?: Dispatcher;
  /** Without fetch: undici's request (default), or Node's own http module (no dispatcher). */
  http?: 'undici' | 'node';
  timeoutMs: number;
  maxRetries: number;
  retryBudgetMs: number;
  userAgent: string;
  /** First backoff step; doubled per retry, with jitter. */
  retryBaseMs: number;
  retryMaxDelayMs: number;
  onRetry?: (info: RetryInfo) => void;
}

export interface Outgoing {
  method: string;
  url: string;
  headers: Record<string, string>;
  /** Made once per attempt, so a retry sends a fresh stream of the same bytes. */
  body?: () => RequestBody | undefined;
  /** False for a one-shot stream: it cannot be sent twice, so the call is never retried. */
  replayable: boolean;
  /** POSTs: sent as Idempotency-Key, the same on every retry of this call (`'per-attempt'` for login, see client). */
  idempotencyKey?: string | 'per-attempt';
  operation: string;
  signal?: AbortSignal;
  timeoutMs?: number;
  /** Set by a body stream that gave up on purpose (e.g. a size cap): reported instead of the network error. */
  bodyFailure?: { error?: Error };
}

export interface Incoming {
  status: number;
  headers: Headers;
  text: string;
  attempts: number;
}

// undici is loaded on the first request that uses it, not with the SDK: a client that never sends,
// or sends with `http: 'node'` (the Playwright reporter), does not pay for loading it.
let undici: Promise<typeof import('undici')> | undefined;
const loadUndici = () => (undici ??= import('undici'));

let sharedAgent: Agent | undefined;
/** One keep-alive pool per process, like Node's global dispatcher, so many clients do not each hold sockets. */
function defaultAgent(u: typeof import('undici')): Agent {
  sharedAgent ??= new u.Agent({ keepAliveTimeout: 30_000, keepAliveMaxTimeout: 120_000, connections: 32 });
  return sharedAgent;
}

/** Proxies, restarts and outages (503/507 from the server say so with Retry-After): nothing was written. */
const RETRYABLE_STATUS = new Set([502, 503, 504, 507]);
const IDEMPOTENT_METHODS = new Set(['GET', 'HEAD', 'PUT', 'PATCH', 'DELETE']);

/**
 * A request that may be sent again without doing its work twice: a GET, PATCH or DELETE (the same
 * request leaves the same state), or a POST with one Idempotency-Key for all of its attempts (the
 * server replays its first answer). Login's fresh key per attempt does not count.
 */
export function isIdempotent(outgoing: Pick<Outgoing, 'method' | 'idempotencyKey'>): boolean {
  return IDEMPOTENT_METHODS.has(outgoing.method) || (outgoing.idempotencyKey !== undefined && outgoing.idempotencyKey !== 'per-attempt');
}

/**
 * Which failures are worth another attempt. A 500 is, for an idempotent request only: our handlers
 * run in one transaction, so a 500 changed nothing, and the error behind it may be gone a moment
 * later (a database connection dropped mid-request: 20% of the batches of a PostgreSQL restart were
 * lost before, issue 26). A 500 that recurs for the same input only costs the retry budget.
 */
export function isRetryable(error: unknown, attempt: number, outgoing: Pick<Outgoing, 'method' | 'idempotencyKey'>): boolean {
  if (error instanceof ConnectionError || error instanceof RateLimitError) return true;
  if (error instanceof ServerError) return RETRYABLE_STATUS.has(error.status) || (error.status === 500 && isIdempotent(outgoing));
  // A retry that arrives while the server is still finishing the first attempt (which our time-out
  // gave up on) is told so with 409; a moment later the stored answer is replayed.
  if (error instanceof ConflictError) return attempt > 1 && outgoing.idempotencyKey !== undefined && /in progress/i.test(error.serverMessage);
  return false;
}

/** Exponential backoff with "equal jitter": half fixed, half random, so clients that failed together spread out. */
export function backoffDelay(retryIndex: number, baseMs: number, maxMs: number): number {
  const ceiling = Math.min(maxMs, baseMs * 2 ** retryIndex);
  return Math.round(ceiling / 2 + Math.random() * (ceiling / 2));
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

function describeNetworkFailure(err: unknown): string {
  const cause = (err as { cause?: { code?: string; message?: string } })?.cause;
  const parts = [cause?.code, cause?.message ?? (err as Error)?.message].filter(Boolean);
  return parts.join(' ') || String(err);
}

export class Transport {
  constructor(private readonly config: TransportConfig) {}

  async send(out: Outgoing): Promise<Incoming> {
    const started = performance.now();
    const budget = this.config.retryBudgetMs;
    const remaining = () => budget - (performance.now() - started);
    let attempts = 0;
    const idempotencyKey = out.idempotencyKey === 'per-attempt' ? undefined : out.idempotencyKey;

    return pRetry(
      async (attempt) => {
        attempts = attempt;
        const key = out.idempotencyKey === 'per-attempt' ? randomUUID() : idempotencyKey;
        // The first attempt always gets its full time-out; later ones only what is left of the budget.
        const perAttempt = out.timeoutMs ?? this.config.timeoutMs;
        const timeoutMs = Math.floor(attempt === 1 ? perAttempt : Math.max(1, Math.min(perAttempt, remaining())));
        try {
          return { ...(await this.attempt(out, key, timeoutMs)), attempts };
        } catch (err) {
          if (!out.replayable || !isRetryable(err, attempt, out)) throw new AbortError(err as Error);
          throw err;
        }
      },
      {
        retries: out.replayable ? this.config.maxRetries : 0,
        // Delays are chosen in onFailedAttempt (it knows Retry-After); p-retry keeps count and budget.
        minTimeout: 0,
        factor: 1,
        maxRetryTime: budget,
        signal: out.signal,
        onFailedAttempt: async ({ error, attemptNumber, retriesLeft }) => {
          if (retriesLeft <= 0) return;
          let delay = backoffDelay(attemptNumber - 1, this.config.retryBaseMs, this.config.retryMaxDelayMs);
          const retryAfter = error instanceof RateLimitError ? error.retryAfter : error instanceof ApiError ? parseRetryAfter(error.headers?.get('retry-after') ?? null) : undefined;
          if (retryAfter !== undefined) {
            // Never sooner than the server asked (429, 503, 507), plus a little jitter so a crowd
            // does not return at once; a longer backoff of our own still applies.
            delay = Math.max(delay, Math.ceil(retryAfter * 1000) + Math.round(Math.random() * 100));
          }
          // A wait that outlasts the budget is pointless: fail now with the server's answer.
          if (delay >= remaining()) throw error;
          this.config.onRetry?.({ operation: out.operation, attempt: attemptNumber, error, delayMs: delay });
          await sleep(delay, out.signal);
        },
      },
    );
  }

  private async attempt(out: Outgoing, idempotencyKey: string | undefined, timeoutMs: number): Promise<Omit<Incoming, 'attempts'>> {
    const timeout = AbortSignal.timeout(timeoutMs);
    const signal = out.signal ? AbortSignal.any([out.signal, timeout]) : timeout;
    const headers: Record<string, string> = { 'User-Agent': this.config.userAgent, Accept: 'application/json', ...out.headers };
    if (idempotencyKey) headers['Idempotency-Key'] = idempotencyKey;
    const body = out.body?.();
    try {
      const res = await this.exchange(out, headers, body, signal);
      if (res.status >= 200 && res.status < 300) return res;
      if (res.status >= 300 && res.status < 400) throw redirectError(res.status, res.headers, out.operation);
      throw errorFromResponse(res.status, res.headers, res.text, out.operation);
    } catch (err) {
      if (err instanceof ApiError) throw err;
      // Neither is retryable: the body gave up on purpose, or the caller cancelled.
      if (out.bodyFailure?.error) throw out.bodyFailure.error;
      if (out.signal?.aborted) throw toError(out.signal.reason);
      if (timeout.aborted) throw new ConnectionError(`${out.operation} timed out after ${timeoutMs} ms`, { cause: err, timedOut: true });
      throw new ConnectionError(`${out.operation} failed: could not reach the server (${describeNetworkFailure(err)})`, { cause: err });
    }
  }

  /**
   * One HTTP exchange. By default undici's `request` on the keep-alive Agent (`http: 'node'`: Node's
   * own http module, see nodeHttp.ts): it streams an upload
   * with constant memory (undici's fetch holds every chunk of a streamed body until the request
   * ends) and never follows redirects. An injected fetch gets the same request as a web stream.
   * Reading the answer is part of the exchange, so the time-out covers a server that stalls mid-answer.
   */
  private async exchange(out: Outgoing, headers: Record<string, string>, body: RequestBody | undefined, signal: AbortSignal): Promise<Omit<Incoming, 'attempts'>> {
    if (this.config.fetch) {
      const streamed = body !== undefined && typeof body !== 'string';
      const res = await this.config.fetch(out.url, {
        method: out.method,
        headers,
        body: streamed ? ReadableStream.from(body) : body,
        signal,
        // fetch would forward X-API-Key (unlike Authorization) to whatever address a Location names.
        redirect: 'manual',
        ...(streamed ? { duplex: 'half' as const } : {}),
      });
      return { status: res.status, headers: res.headers, text: await res.text() };
    }
    if (this.config.http === 'node' && !this.config.dispatcher) return nodeExchange(out.method, out.url, headers, body, signal);
    const u = await loadUndici();
    const res = await u.request(out.url, {
      method: out.method as Dispatcher.HttpMethod,
      headers,
      body: body === undefined || typeof body === 'string' ? body : Readable.from(body, { objectMode: false }),
      signal,
      dispatcher: this.config.dispatcher ?? defaultAgent(u),
    });
    return { status: res.statusCode, headers: toHeaders(res.headers), text: await res.body.text() };
  }
}


function redirectError(status: number, headers: Headers, operation: string): ApiError {
  const location = headers.get('location') ?? 'another address';
  return new ApiError({
    status,
    code: 'UNEXPECTED_REDIRECT',
    message: `The server redirected to ${location}; set url (or baseUrl) to the final address — credentials are not sent on to a redirect target`,
    requestId: headers.get('x-request-id') ?? undefined,
    operation,
    headers,
  });
}

function toError(reason: unknown): Error {
  return reason instanceof Error ? reason : new Error(String(reason));
}
