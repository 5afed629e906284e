import { posix } from 'node:path';
import codeownersUtils from 'codeowners-utils';

/** Owners of a file path of a run's tests; [] when the run sent no CODEOWNERS or no rule matches. */
export type OwnersOf = (filePath: string | null) => string[];

const NONE: OwnersOf = () => [];

/**
 * GitHub's CODEOWNERS rules through `codeowners-utils` (gitignore-style patterns via `ignore`; the
 * last matching line wins, and a matching line without owners leaves the file unowned). File paths
 * of results are relative to Playwright's rootDir: `rootDirInRepo` puts them back under the
 * repository root that CODEOWNERS patterns are written against.
 */
export function ownersResolver(text: string | null, rootDirInRepo: string | null): OwnersOf {
  if (!text) return NONE;
  const entries = codeownersUtils.parse(text.replace(/\r\n?/g, '\n'));
  if (entries.length === 0) return NONE;
  // Many results share a file; a batch resolves each distinct path once.
  const memo = new Map<string, string[]>();
  return (filePath) => {
    if (!filePath) return [];
    const path = repoPath(rootDirInRepo, filePath);
    if (path === null) return [];
    let owners = memo.get(path);
    if (owners === undefined) {
      try {
        owners = codeownersUtils.matchFile(path, entries)?.owners ?? [];
      } catch {
        owners = []; // a path the matcher refuses (it would escape the repository) has no owner
      }
      memo.set(path, owners);
    }
    return owners;
  };
}

/** The path relative to the repository root, or null when it points outside it. */
function repoPath(root: string | null, filePath: string): string | null {
  const joined = posix.normalize(posix.join((root ?? '').replace(/\\/g, '/'), filePath.replace(/\\/g, '/'))).replace(/^(\.\/)+|^\/+/, '');
  return joined === '' || joined === '.' || joined.startsWith('../') ? null : joined;
}
