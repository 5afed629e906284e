import { readFileSync, statSync } from 'node:fs';
import { dirname, isAbsolute, join, resolve } from 'node:path';

/**
 * The branch HEAD names, read from the checkout's HEAD file: what `git rev-parse --abbrev-ref HEAD`
 * says, without a second `git` process. Each process the reporter spawns forks Playwright's runner
 * (about 20 ms of its CPU for a 2,000-test run's heap, docs/benchmarks.md). `null` for a detached
 * HEAD; `undefined` when the file does not say (no repository found, a worktree layout not known
 * here, a reftable repository whose HEAD file is a placeholder): the caller asks git then.
 */
export function headBranch(cwd: string = process.cwd(), env: NodeJS.ProcessEnv = process.env): string | null | undefined {
  const gitDir = env.GIT_DIR ? resolve(cwd, env.GIT_DIR) : findGitDir(resolve(cwd));
  if (!gitDir) return undefined;
  let head: string;
  try {
    head = readFileSync(join(gitDir, 'HEAD'), 'utf8').trim();
  } catch {
    return undefined;
  }
  if (/^[0-9a-f]{40}([0-9a-f]{24})?$/.test(head)) return null;
  const m = /^ref: refs\/heads\/(\S+)$/.exec(head);
  // Reftable keeps HEAD elsewhere and leaves `refs/heads/.invalid` in the file.
  if (!m || m[1] === '.invalid') return undefined;
  return m[1];
}

/** `.git` above `dir`: a directory, or a file pointing at one (`gitdir: …`, worktrees and submodules). */
function findGitDir(dir: string): string | undefined {
  for (let at = dir; ; at = dirname(at)) {
    const candidate = join(at, '.git');
    try {
      if (statSync(candidate).isDirectory()) return candidate;
      const m = /^gitdir: (.+)$/m.exec(readFileSync(candidate, 'utf8'));
      if (m) return isAbsolute(m[1].trim()) ? m[1].trim() : resolve(at, m[1].trim());
      return undefined;
    } catch {
      // Not here: one level up.
    }
    if (dirname(at) === at) return undefined;
  }
}
