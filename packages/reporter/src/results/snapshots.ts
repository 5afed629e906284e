import { isAbsolute, relative, sep } from 'node:path';
import { stripAnsi } from '@testreport/contract/core';

/** `header-expected.png` → `header`, `expected`, `.png`: Playwright's names for a comparison's files. */
const PART = /^(.+)-(expected|actual|diff)(\.[a-z0-9]+)$/i;
/** Playwright's message when no baseline existed ("…, writing actual." or "." when it writes nothing). */
const MISSING = /A snapshot doesn't exist at (.+?)(?:, writing actual\.|, matchers using ".not".*|\.)$/gm;

/**
 * The baselines' paths of one try's snapshot comparisons, relative to the Playwright project root
 * (`rootDir`), keyed by the comparison's name with its extension (`header.png`). Playwright gives
 * the baseline's absolute path as the `-expected` attachment's path (the file in the repository,
 * not a copy), and in its message when no baseline existed. A path outside the root is left out:
 * it could not be written back in a checkout of the project.
 */
export function snapshotPaths(attachments: readonly { name?: string; path?: string }[], errorMessages: readonly string[], rootDir: string | undefined): Map<string, string> {
  const out = new Map<string, string>();
  if (!rootDir) return out;
  const add = (key: string, abs: string) => {
    if (!isAbsolute(abs)) return;
    const rel = relative(rootDir, abs).split(sep).join('/');
    if (rel && !rel.startsWith('../') && rel !== '..' && !isAbsolute(rel)) out.set(key, rel);
  };
  for (const a of attachments) {
    const m = a.name ? PART.exec(a.name) : null;
    if (m && m[2].toLowerCase() === 'expected' && a.path) add(`${m[1]}${m[3]}`, a.path);
  }
  for (const message of errorMessages) {
    for (const m of stripAnsi(message).matchAll(MISSING)) {
      const abs = m[1].trim();
      const base = abs.split(/[\\/]/).pop()!;
      // The error names the baseline file (`header-chromium-linux.png`), the attachments name the
      // comparison (`header-actual.png`): match on what the actual's name starts with.
      const ext = /\.[a-z0-9]+$/i.exec(base)?.[0] ?? '';
      const match = attachments.map((a) => (a.name ? PART.exec(a.name) : null)).find((p) => p && p[2].toLowerCase() === 'actual' && p[3] === ext && base.startsWith(p[1]));
      if (match && !out.has(`${match[1]}${match[3]}`)) add(`${match[1]}${match[3]}`, abs);
    }
  }
  return out;
}

/** The key of `snapshotPaths` a comparison file belongs to, or null for any other attachment. */
export function snapshotKey(name: string | undefined): string | null {
  const m = name ? PART.exec(name) : null;
  return m ? `${m[1]}${m[3]}` : null;
}
