#!/usr/bin/env node
// The first step of `npm test`, before the typecheck, so that a machine that cannot run the suite
// hears so at once.
// 1. The machine (provision.mjs): Chromium, Swift for the S3 tests and a PostgreSQL the API suites
//    can use. As root it installs and starts what is missing; otherwise it stops at once with the
//    one command that does (`sudo node test/setup/preflight.mjs --provision`, which does only this).
// 2. dist/: the end-to-end tests spawn the built binaries and reporter, so a dist/ older than the
//    sources would test yesterday's code. Rebuild when any source or build setting is newer than
//    the oldest built file (or a package has no build); skip otherwise, so CI, whose `npm ci` has
//    just built everything, does not build twice. mtimes suffice: git writes every file it checks
//    out or changes with the current time.
import { execSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { provision } from './provision.mjs';

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

try {
  await provision();
} catch (err) {
  process.stderr.write(`\nerror: ${err.message}\n\n`);
  process.exit(1);
}
if (process.argv.includes('--provision')) process.exit(0);

const reason = staleReason();
if (reason) {
  process.stdout.write(`dist/ is stale (${reason}): npm run build\n`);
  execSync('npm run build', { cwd: root, stdio: 'inherit' });
} else {
  process.stdout.write('dist/ is up to date with the sources\n');
}
