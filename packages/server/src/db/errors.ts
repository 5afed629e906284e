import type { AppError } from '../lib/errors.js';
import { outageError, systemOutage } from '../lib/outage.js';
import { dialects } from './dialects/index.js';

/**
 * Error classification for services: each dialect recognises its own driver's errors, so a
 * service asks "was this a unique violation?" without knowing which database answered.
 */
export const isUniqueViolation = (err: unknown): boolean => dialects.some((d) => d.isUniqueViolation(err));

/**
 * A database outage as its error answer: a full disk (SQLITE_FULL, PostgreSQL's disk_full) is 507,
 * a database that is restarting, shutting down or unreachable is 503; undefined for anything else.
 * Plain network errors count too: besides the artifact store (whose errors its own module names),
 * the database is what a request talks to over the network.
 */
export function databaseOutage(err: unknown): AppError | undefined {
  for (const d of dialects) {
    const kind = d.outage(err);
    if (kind) return outageError(kind, 'The database');
  }
  const kind = systemOutage(err);
  return kind ? outageError(kind, 'The database') : undefined;
}
