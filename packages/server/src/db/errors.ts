import { dialects } from './dialects/index.js';

/**
 * Error classification for services: each dialect recognises its own driver's errors, so a
 * service asks "was this a unique violation?" without knowing which database answered.
 */
export const isUniqueViolation = (err: unknown): boolean => dialects.some((d) => d.isUniqueViolation(err));
