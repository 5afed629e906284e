import { createHash } from 'node:crypto';
import { normaliseError } from '../runs/comparison.js';

/**
 * The fingerprint of an error (docs/decisions.md §13): 16 hex characters of the SHA-256 of its normalised
 * message (the run page's grouping key: numbers, ids, temp paths and quoted values masked) and the
 * file it happened in (the error location's file, else the test's file). Kept with each result at
 * ingestion so that error groups across runs are one indexed GROUP BY, never a re-normalisation.
 */
export function fingerprintOf(message: string | null | undefined, file: string | null | undefined): string | null {
  if (message === null || message === undefined) return null;
  return createHash('sha256').update(`${normaliseError(message)}\n${file ?? ''}`).digest('hex').slice(0, 16);
}
