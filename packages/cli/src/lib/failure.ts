import { ApiError, ConnectionError, InsecureTransportError, KeyValidationError } from '@testreport/client/core';
import { CommanderError } from 'commander';
import { InputError } from '../report/inputs.js';
import { MalformedReportError } from '../report/types.js';
import { EXIT, UsageError } from './errors.js';

export interface Failure {
  exitCode: number;
  /** One line for people: what went wrong, with the server's code and field. */
  line: string;
  /** The same for --json callers, on stdout. */
  body: { error: { code: string; message: string; status?: number; field?: string; reason?: string; requestId?: string } };
}

function oneLine(text: string): string {
  return text.replace(/\s*\n\s*/g, ' ').trim();
}

/** Turns anything thrown into an exit code and one readable line (no stack unless --debug). */
export function describeFailure(err: unknown): Failure {
  if (err instanceof KeyValidationError) {
    return { exitCode: EXIT.usage, line: `invalid API key: ${oneLine(err.message)}`, body: { error: { code: 'INVALID_API_KEY', message: err.message, reason: err.problem } } };
  }
  if (err instanceof UsageError || err instanceof InputError || err instanceof MalformedReportError) {
    const code = err instanceof MalformedReportError ? 'MALFORMED_REPORT' : 'USAGE_ERROR';
    return { exitCode: EXIT.usage, line: oneLine(err.message), body: { error: { code, message: err.message } } };
  }
  if (err instanceof ApiError) {
    const details = (err.details ?? {}) as { field?: string; reason?: string };
    const where = details.field ? ` (field ${details.field}${details.reason ? `: ${details.reason}` : ''})` : '';
    const id = err.requestId ? ` [request ${err.requestId}]` : '';
    const text = (err as ApiError & { serverMessage?: string }).serverMessage ?? err.message;
    return {
      exitCode: EXIT.failure,
      line: `${oneLine(text)} [${err.code}, HTTP ${err.status}]${where}${id}`,
      body: { error: { code: err.code, message: text, status: err.status, field: details.field, reason: details.reason, requestId: err.requestId } },
    };
  }
  if (err instanceof ConnectionError) {
    return { exitCode: EXIT.failure, line: `cannot reach the server: ${oneLine(err.message)}`, body: { error: { code: 'CONNECTION_ERROR', message: err.message } } };
  }
  if (err instanceof CommanderError) {
    return { exitCode: EXIT.usage, line: oneLine(err.message.replace(/^error: /, '')), body: { error: { code: 'USAGE_ERROR', message: err.message } } };
  }
  const message = err instanceof Error ? err.message : String(err);
  // Refusing plain http:// to a remote host is a configuration problem, not a server failure.
  const usage = err instanceof InsecureTransportError;
  return { exitCode: usage ? EXIT.usage : EXIT.failure, line: oneLine(message), body: { error: { code: usage ? 'USAGE_ERROR' : 'ERROR', message } } };
}
