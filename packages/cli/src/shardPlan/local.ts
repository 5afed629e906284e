import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { PlannedShard } from '@testreport/contract';

/** Listing a big suite loads every test file; beyond this the plan is used as the server made it. */
const LIST_TIMEOUT_MS = 120_000;

/**
 * The test files of the Playwright project in `cwd` (relative to its rootDir, as the reporter stores
 * them), from `playwright test --list --reporter=json`; undefined when Playwright cannot list them.
 */
export async function discoverTestFiles(cwd: string, config?: string): Promise<string[] | undefined> {
  let cli: string;
  try {
    cli = createRequire(join(cwd, 'noop.js')).resolve('@playwright/test/cli');
  } catch {
    return undefined;
  }
  const args = [cli, 'test', '--list', '--reporter=json', ...(config ? ['-c', config] : [])];
  const stdout = await new Promise<string | undefined>((resolve) => {
    execFile(process.execPath, args, { cwd, timeout: LIST_TIMEOUT_MS, maxBuffer: 512 * 1024 * 1024, env: { ...process.env, FORCE_COLOR: '0' } }, (err, out) =>
      // --list exits 0; anything else (a broken config) means we know nothing about the files.
      resolve(err ? undefined : out),
    );
  });
  if (!stdout) return undefined;
  try {
    const report = JSON.parse(stdout.slice(stdout.indexOf('{'))) as { suites?: { file?: string }[] };
    const files = new Set<string>();
    for (const s of report.suites ?? []) if (s.file) files.add(s.file.split('\\').join('/'));
    return [...files].sort();
  } catch {
    return undefined;
  }
}

/**
 * The server's plan made true for this checkout: files the history knows but that are gone are
 * dropped; files it does not know yet (new ones) go, longest-expected first, into the least loaded
 * shard at the median known file duration. Deterministic, so every job computes the same split.
 */
export function fitToLocalFiles(shards: PlannedShard[], local: string[]): PlannedShard[] {
  const here = new Set(local);
  const known = new Map<string, number>();
  const out = shards.map((s) => ({ index: s.index, files: s.files.filter((f) => here.has(f)), expectedDuration: s.expectedDuration }));
  for (const s of shards) for (const f of s.files) known.set(f, 0);
  // Durations per file are not in the plan; a shard's average file stands in for the dropped ones.
  for (const [i, s] of shards.entries()) {
    const per = s.files.length ? s.expectedDuration / s.files.length : 0;
    const gone = s.files.length - out[i].files.length;
    out[i].expectedDuration = Math.max(0, Math.round(s.expectedDuration - gone * per));
  }
  const perFile = shards.flatMap((s) => (s.files.length ? [s.expectedDuration / s.files.length] : [])).sort((a, b) => a - b);
  const guess = perFile.length ? perFile[perFile.length >> 1] : 1;
  for (const f of local) {
    if (known.has(f)) continue;
    let target = out[0];
    for (const s of out) if (s.expectedDuration < target.expectedDuration) target = s;
    target.files.push(f);
    target.expectedDuration += Math.round(guess);
  }
  for (const s of out) s.files.sort();
  return out;
}

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * Arguments for `playwright test` that select exactly these files. Playwright reads each argument
 * as a regular expression over the absolute path, so `login.spec.ts` would also pick
 * `admin-login.spec.ts`: each file becomes `/<path>$` with its dots escaped.
 */
export function fileArgs(files: string[]): string[] {
  return files.map((f) => `/${escapeRegExp(f)}$`);
}
