import { createRequire } from 'node:module';

/** The package version, read from package.json beside dist/ (or src/ under vitest). */
export const VERSION: string = (() => {
  try {
    return (createRequire(import.meta.url)('../package.json') as { version: string }).version;
  } catch {
    try {
      return (createRequire(import.meta.url)('../../package.json') as { version: string }).version;
    } catch {
      return '0.0.0';
    }
  }
})();
