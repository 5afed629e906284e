import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { FullConfig, Suite } from '@playwright/test/reporter';
import { codeownersFields } from './codeowners.js';
import type { ResolvedOptions } from './options.js';
import { runBody } from './runMeta.js';

/** A repository in a temp dir: `.git` as a directory (or a file, as in a worktree) and the given files. */
function repo(files: Record<string, string>, gitFile = false) {
  const root = mkdtempSync(join(tmpdir(), 'testreport-owners-'));
  if (gitFile) writeFileSync(join(root, '.git'), 'gitdir: /elsewhere\n');
  else mkdirSync(join(root, '.git'));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(root, path, '..'), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

describe('CODEOWNERS of a run', () => {
  it('sends the file GitHub would use (.github/ before the root before docs/ before .gitlab/) and where tests start', () => {
    const root = repo({ '.github/CODEOWNERS': '* @gh\n', CODEOWNERS: '* @root\n', 'docs/CODEOWNERS': '* @docs\n', 'e2e/a.spec.ts': '' });
    expect(codeownersFields(join(root, 'e2e'))).toEqual({ codeowners: '* @gh\n', rootDirInRepo: 'e2e' });
    expect(codeownersFields(repo({ CODEOWNERS: '* @root\n', 'docs/CODEOWNERS': '* @docs\n' }))).toEqual({ codeowners: '* @root\n' });
    expect(codeownersFields(repo({ 'docs/CODEOWNERS': '* @docs\n', '.gitlab/CODEOWNERS': '* @gl\n' }))).toEqual({ codeowners: '* @docs\n' });
    expect(codeownersFields(repo({ '.gitlab/CODEOWNERS': '* @gl\n' }, true))).toEqual({ codeowners: '* @gl\n' });
  });

  it('sends nothing without a CODEOWNERS file or outside a repository', () => {
    expect(codeownersFields(repo({ 'README.md': 'x' }))).toEqual({});
    expect(codeownersFields(mkdtempSync(join(tmpdir(), 'testreport-norepo-')))).toEqual({});
  });
});

describe('the run the reporter creates', () => {
  it('carries the CODEOWNERS of the repository above Playwright\'s rootDir', () => {
    const root = repo({ '.github/CODEOWNERS': '/e2e/ @acme/e2e\n', 'e2e/tests/a.spec.ts': '' });
    const config = { projects: [], rootDir: join(root, 'e2e/tests'), version: '1.50.0', workers: 1, grep: /.*/, grepInvert: null, shard: null } as unknown as FullConfig;
    const body = runBody(config, { suites: [] } as unknown as Suite, { tags: [] } as unknown as ResolvedOptions, {});
    expect(body).toMatchObject({ codeowners: '/e2e/ @acme/e2e\n', rootDirInRepo: 'e2e/tests' });
  });
});
