import { sql, type RawBuilder } from 'kysely';
import { likePattern } from '../db/text.js';

/**
 * `owner=`: rows whose `owners` JSON array holds exactly this owner. The quoted JSON string is
 * matched, so `@acme/check` does not match `@acme/checkout` (the tags filter does the same).
 */
export const ownedBy = (owner: string, column = 'owners'): RawBuilder<boolean> => sql<boolean>`${sql.ref(column)} like ${likePattern(JSON.stringify(owner))} escape '\\'`;

/** What the owners column holds: a JSON array, or null for none (most results of most projects). */
export const ownersColumn = (owners: string[]): string | null => (owners.length ? JSON.stringify(owners) : null);
