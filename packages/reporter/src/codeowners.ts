import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';

/** Where GitHub looks for CODEOWNERS, in its order, then GitLab's extra place. */
export const CODEOWNERS_PATHS = ['.github/CODEOWNERS', 'CODEOWNERS', 'docs/CODEOWNERS', '.gitlab/CODEOWNERS'] as const;
/** GitHub ignores a CODEOWNERS file of 3 MB or more; so does the server. */
const MAX_BYTES = 3_000_000;

/** The repository root above `dir`: the nearest directory with a `.git` (a directory, or a file in a worktree or submodule). */
export function findRepoRoot(dir: string): string | null {
  let at = resolve(dir);
  for (;;) {
    if (existsSync(join(at, '.git'))) return at;
    const up = dirname(at);
    if (up === at) return null;
    at = up;
  }
}

/**
 * The CODEOWNERS fields of a run (docs/decisions.md §13): the file's text as it is (the server resolves
 * owners; nothing here parses it) and where the tests' file paths start relative to the repository
 * root. Nothing when `testRoot` is outside a repository or the repository has no CODEOWNERS.
 */
export function codeownersFields(testRoot: string): { codeowners?: string; rootDirInRepo?: string } {
  try {
    const root = findRepoRoot(testRoot);
    if (!root) return {};
    for (const path of CODEOWNERS_PATHS) {
      const file = join(root, path);
      if (!existsSync(file)) continue;
      const st = statSync(file);
      if (!st.isFile() || st.size >= MAX_BYTES) continue;
      const text = readFileSync(file, 'utf8');
      const rootDirInRepo = relative(root, resolve(testRoot)).split(sep).join('/');
      return { codeowners: text, ...(rootDirInRepo ? { rootDirInRepo } : {}) };
    }
  } catch {
    // An unreadable file is no reason to lose the run: it only goes without owners.
  }
  return {};
}
