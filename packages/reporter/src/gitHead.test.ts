import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { detectGit } from './ci.js';
import { headBranch } from './gitHead.js';

const root = mkdtempSync(join(tmpdir(), 'tr-githead-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', ['-c', 'user.name=Ann', '-c', 'user.email=ann@example.com', ...args], { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
/** What the reporter asked git before: `rev-parse --abbrev-ref HEAD`, "HEAD" when detached. */
const gitsBranch = (cwd: string) => git(cwd, 'rev-parse', '--abbrev-ref', 'HEAD');

function repo(name: string): string {
  const dir = join(root, name);
  mkdirSync(join(dir, 'tests', 'e2e'), { recursive: true });
  git(dir, 'init', '-q', '-b', 'main');
  git(dir, 'commit', '-q', '--allow-empty', '-m', 'first');
  return dir;
}

describe('headBranch', () => {
  it('names the branch as git does, from a folder deep in the checkout, slashes included', () => {
    const dir = repo('plain');
    git(dir, 'checkout', '-q', '-b', 'feature/login-form');
    const deep = join(dir, 'tests', 'e2e');
    expect(headBranch(deep, {})).toBe('feature/login-form');
    expect(headBranch(deep, {})).toBe(gitsBranch(deep));
    expect(detectGit(deep).branch).toBe('feature/login-form');
  });

  it('says detached (null) where git says HEAD, and detectGit then has no branch', () => {
    const dir = repo('detached');
    git(dir, 'checkout', '-q', '--detach');
    expect(gitsBranch(dir)).toBe('HEAD');
    expect(headBranch(dir, {})).toBeNull();
    expect(detectGit(dir)).toMatchObject({ branch: undefined, commitSha: expect.stringMatching(/^[0-9a-f]{40}$/) });
  });

  it('follows a worktree’s .git file to its own HEAD', () => {
    const dir = repo('main-tree');
    const tree = join(root, 'other-tree');
    git(dir, 'worktree', 'add', '-q', '-b', 'hotfix', tree);
    expect(headBranch(tree, {})).toBe('hotfix');
    expect(headBranch(tree, {})).toBe(gitsBranch(tree));
    expect(headBranch(dir, {})).toBe('main');
  });

  it('honours GIT_DIR, and says nothing outside a repository or for a HEAD it does not know', () => {
    const dir = repo('by-env');
    git(dir, 'checkout', '-q', '-b', 'from-env');
    expect(headBranch(tmpdir(), { GIT_DIR: join(dir, '.git') })).toBe('from-env');
    expect(headBranch('/', {})).toBeUndefined();
    // A reftable repository leaves this placeholder in the file: git is asked instead.
    const odd = join(root, 'reftable');
    mkdirSync(join(odd, '.git'), { recursive: true });
    writeFileSync(join(odd, '.git', 'HEAD'), 'ref: refs/heads/.invalid\n');
    expect(headBranch(odd, {})).toBeUndefined();
  });
});
