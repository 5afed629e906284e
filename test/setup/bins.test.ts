import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// npm links a workspace's bin at install time only if its file exists then; dist/ is built later
// (by `prepare`), so a bin pointing into dist/ is missing from node_modules/.bin on a fresh clone
// and `npx reporter` falls through to an unrelated registry package. A clone + install is too slow
// for the suite; what makes it work is checked here: every bin is a committed file outside dist/.

const ROOT = resolve(fileURLToPath(new URL('../..', import.meta.url)));
const workspaces: string[] = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).workspaces;
const manifest = (ws: string) => JSON.parse(readFileSync(join(ROOT, ws, 'package.json'), 'utf8'));
const bins = workspaces.flatMap((ws) => Object.entries<string>(manifest(ws).bin ?? {}).map(([name, target]) => ({ ws, name, file: join(ws, target) })));
const git = (...args: string[]) => execFileSync('git', args, { cwd: ROOT, encoding: 'utf8' });

describe('the reporter and reporter-server bins', () => {
  it('are the two commands the README documents', () => {
    expect(Object.fromEntries(bins.map((b) => [b.name, b.ws]))).toEqual({ reporter: 'packages/cli', 'reporter-server': 'packages/server' });
  });

  it.each(bins)('$name is a committed, executable node script outside dist/ that ships in the package', ({ ws, file }) => {
    expect(file).not.toMatch(/(^|\/)dist\//);
    // Tracked by git: present in a fresh clone before any build. Mode 100755: executable after checkout.
    expect(git('ls-files', '--stage', '--', file)).toMatch(/^100755 /);
    expect(readFileSync(join(ROOT, file), 'utf8').split('\n')[0]).toBe('#!/usr/bin/env node');
    const files: string[] = manifest(ws).files;
    expect(files.some((f) => file === join(ws, f) || file.startsWith(join(ws, f) + '/'))).toBe(true);
  });

  it.each(bins)('npm linked $name in node_modules/.bin to that file (run `npm install` if this fails after a pull)', ({ name, file }) => {
    expect(realpathSync(join(ROOT, 'node_modules/.bin', name))).toBe(realpathSync(join(ROOT, file)));
  });

  it.each(bins)('$name runs our built command', ({ name, file }) => {
    const res = spawnSync(process.execPath, [join(ROOT, file), '--help'], { encoding: 'utf8' });
    expect(res.status).toBe(0);
    expect(res.stdout).toContain(`Usage: ${name} [options] [command]`);
  });

  it.each(bins)('$name before a build says to run npm run build', ({ name, file }) => {
    // The bin copied beside no dist/: what a fresh clone runs if the build did not happen.
    const dir = join(mkdtempSync(join(tmpdir(), 'testreport-bin-')), 'bin');
    mkdirSync(dir);
    const copy = join(dir, `${name}.js`);
    copyFileSync(join(ROOT, file), copy);
    copyFileSync(join(ROOT, dirname(file), '..', 'package.json'), join(dir, '..', 'package.json'));
    const res = spawnSync(process.execPath, [copy, '--help'], { encoding: 'utf8' });
    expect(res.status).toBe(1);
    expect(res.stderr).toMatch(new RegExp(`^${name}: .* is not built yet: run \`npm run build\``));
  });
});
