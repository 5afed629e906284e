import { spawn } from 'node:child_process';
import { cpSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fixtureRunEnv, ROOT } from '../cli/helpers.js';

/**
 * One `playwright test` run of test/reporter/fixtures/debug.config.ts (tries, soft assertions,
 * screenshot comparisons, a text file) with the built reporter against `server`, outputs in `dir`.
 * Playwright writes the missing baseline: it does so on a copy of the committed ones.
 */
export async function runDebugSuite(dir: string, server: { url: string; apiKey: string }): Promise<{ code: number; output: string; runId: string | undefined }> {
  const snaps = join(dir, 'snaps');
  mkdirSync(snaps);
  cpSync(join(ROOT, 'test/reporter/fixtures/debug/__screenshots__'), snaps, { recursive: true });
  const env = fixtureRunEnv(dir, server, { TR_SNAPSHOTS: snaps });
  // On CI Playwright would not write (nor attach) the missing baseline.
  delete env.CI;
  const child = spawn(process.execPath, [join(ROOT, 'node_modules/@playwright/test/cli.js'), 'test', '-c', join(ROOT, 'test/reporter/fixtures/debug.config.ts')], { cwd: join(ROOT, 'test/reporter/fixtures'), env });
  let output = '';
  child.stdout.on('data', (d) => (output += d));
  child.stderr.on('data', (d) => (output += d));
  const code = await new Promise<number>((r) => child.on('close', (c) => r(c ?? -1)));
  return { code, output, runId: /\/runs\/([0-9a-f-]{36})/.exec(output)?.[1] };
}
