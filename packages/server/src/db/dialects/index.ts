import type { DialectSupport } from '../dialect.js';
import { postgres } from './postgres.js';
import { sqlite } from './sqlite.js';

/** Every dialect the server knows. */
export const dialects: readonly DialectSupport[] = [sqlite, postgres];

export function dialectFor(url: string): DialectSupport {
  const found = dialects.find((d) => d.handles(url));
  if (found) return found;
  throw new Error(`unsupported --database-url: ${url.replace(/\/\/[^@/]*@/, '//…@')}`);
}
