#!/usr/bin/env node
// The first step of `npm test`, before the typecheck, so that a machine that cannot run the suite
// hears so at once.
// 1. Chromium: the reporter, CLI and pack tests run real Playwright in it. Without one, one line
//    naming what to install (vitest's global set-up says the same to a bare `vitest run`).
// 2. dist/: the end-to-end tests spawn the built binaries and reporter, so a dist/ older than the
//    sources would test yesterday's code. Rebuild when any source or build setting is newer than
//    the oldest built file (or a package has no build); skip otherwise, so CI, whose `npm ci` has
//    just built everything, does not build twice. mtimes suffice: git writes every file it checks
//    out or changes with the current time.
import { execSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CHROMIUM_HINT, findChromium } from './chromium.mjs';

const root = fileURLToPath(new URL('../..', import.meta.url));
const packages = readdirSync(join(root, 'packages')).filter((p) => existsSync(join(root, 'packages', p, 'src')));

function files(dir) {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name));
}
const mtime = (f) => statSync(f).mtimeMs;

function staleReason() {
  let oldestBuilt = Infinity;
  for (const p of packages) {
    const dist = join(root, 'packages', p, 'dist');
    const built = existsSync(dist) ? files(dist).filter((f) => f.endsWith('.js')) : [];
    if (built.length === 0) return `packages/${p} is not built`;
    for (const f of built) oldestBuilt = Math.min(oldestBuilt, mtime(f));
  }
  const inputs = [
    // Tests beside the sources are not part of any build.
    ...packages.flatMap((p) => files(join(root, 'packages', p, 'src'))).filter((f) => !f.endsWith('.test.ts')),
    ...['tsup.config.ts', 'tsconfig.json', 'tsconfig.build.json', 'package-lock.json'].map((f) => join(root, f)),
  ];
  const newer = inputs.find((f) => mtime(f) > oldestBuilt);
  return newer ? `${newer.slice(root.length)} changed since the last build` : undefined;
}

if (!findChromium()) {
  process.stderr.write(`error: ${CHROMIUM_HINT}\n`);
  process.exit(1);
}

const reason = staleReason();
if (reason) {
  process.stdout.write(`dist/ is stale (${reason}): npm run build\n`);
  execSync('npm run build', { cwd: root, stdio: 'inherit' });
} else {
  process.stdout.write('dist/ is up to date with the sources\n');
}
