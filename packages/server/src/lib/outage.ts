import { AppError, InsufficientStorageError, ServiceUnavailableError } from './errors.js';

/**
 * Outages are answered as outages (issue 26): the request changed nothing (a request's writes are
 * one transaction; a file is stored before its row), so the client is told to send the same request
 * again after `Retry-After` instead of being handed a 500 or, worse, a 4xx it would not retry.
 */

/** A database restart or an object store coming back usually takes a few seconds. */
export const UNAVAILABLE_RETRY_AFTER_S = 2;
/** A full disk needs someone to free space: clients come back less often. */
export const FULL_RETRY_AFTER_S = 10;

export type OutageKind = 'full' | 'unavailable';

const FULL_ERRNO = new Set(['ENOSPC', 'EDQUOT']);
/** The other end is gone or going: refused, reset, unreachable, or a name that does not resolve right now. */
const NETWORK_ERRNO = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN', 'ECONNABORTED']);
/** A disk that fails to read or write (the data dir's file system went read-only or away). */
const DISK_ERRNO = new Set(['EIO', 'EROFS']);

/** The error and its causes (drivers and SDKs wrap the system error). */
export function* causes(err: unknown): Generator<{ code?: unknown; message?: unknown; name?: unknown; $metadata?: { httpStatusCode?: number } }> {
  for (let e = err, depth = 0; e && typeof e === 'object' && depth < 5; e = (e as { cause?: unknown }).cause, depth++) yield e as never;
}

/**
 * What an error of the operating system (errno code) says about the request, if anything. Only
 * errors of a system call count: a client that hangs up mid-upload also surfaces as ECONNRESET
 * ("aborted"), without one, and that is not an outage of ours.
 */
export function systemOutage(err: unknown): OutageKind | undefined {
  for (const e of causes(err)) {
    const code = typeof e.code === 'string' && typeof (e as { syscall?: unknown }).syscall === 'string' ? e.code : '';
    if (FULL_ERRNO.has(code)) return 'full';
    if (NETWORK_ERRNO.has(code) || DISK_ERRNO.has(code)) return 'unavailable';
  }
  return undefined;
}

/** The error answer of an outage of `what` ("The database", "The artifact store"). */
export function outageError(kind: OutageKind, what: string): AppError {
  return kind === 'full' ? new InsufficientStorageError(FULL_RETRY_AFTER_S) : new ServiceUnavailableError(what, UNAVAILABLE_RETRY_AFTER_S);
}
