import type { DialectSupport } from '../dialect.js';
import { sqlite } from './sqlite.js';

/** Every dialect the server knows; `postgres.ts` joins this list. */
export const dialects: readonly DialectSupport[] = [sqlite];

export function dialectFor(url: string): DialectSupport {
  const found = dialects.find((d) => d.handles(url));
  if (found) return found;
  if (/^postgres(ql)?:\/\//.test(url)) {
    throw new Error('PostgreSQL is not supported yet: omit --database-url to use SQLite in the data dir');
  }
  throw new Error(`unsupported --database-url: ${url.replace(/\/\/[^@/]*@/, '//…@')}`);
}
