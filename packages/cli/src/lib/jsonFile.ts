import { chmodSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { UsageError } from './errors.js';

/** Reads a small JSON settings file; absent → undefined, unreadable → a usage error naming the file. */
export function readJsonFile<T extends object>(path: string): T | undefined {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new UsageError(`cannot read ${path}: ${(err as Error).message}`);
  }
  try {
    const value = JSON.parse(text);
    if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new Error('expected a JSON object');
    return value as T;
  } catch (err) {
    throw new UsageError(`${path} is not valid JSON: ${(err as Error).message}`);
  }
}

/**
 * Writes via a temp file and rename so a crash never leaves half a file; `private` files (credentials)
 * are created 0600 in a 0700 folder, before any secret is written into them.
 */
export function writeJsonFile(path: string, value: unknown, opts: { private?: boolean } = {}): void {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, JSON.stringify(value, null, 2) + '\n', { mode: opts.private ? 0o600 : 0o644 });
  if (opts.private) chmodSync(tmp, 0o600);
  renameSync(tmp, path);
}

export function removeFile(path: string): boolean {
  try {
    rmSync(path);
    return true;
  } catch {
    return false;
  }
}
