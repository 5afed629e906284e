import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { PACKAGES, staticGraph, WORKSPACE_ENTRIES } from '../../../test/support/staticGraph.js';

// Every `reporter` command starts a process: CI scripts call it several times per build, and what
// the binary loads before it parses its flags is paid each time. zod and every schema took ≈ 150 ms
// of it, ora ≈ 130 ms and undici ≈ 170 ms (docs/benchmarks.md).
const HEAVY = ['zod', 'ora', 'undici', '@testreport/contract', '@testreport/client'];

describe('what the reporter binary loads before it runs a command', () => {
  it('no zod, no schema, no spinner and no HTTP client: the core entries, and ora and undici only when used', () => {
    const { files, external } = staticGraph(join(PACKAGES, 'cli/src/bin.ts'), WORKSPACE_ENTRIES);
    // The walk reached every command and followed the workspace packages.
    expect(files.some((f) => f.endsWith('cli/src/commands/upload.ts'))).toBe(true);
    expect(files).toContain(WORKSPACE_ENTRIES['@testreport/client/core']);
    expect(files).toContain(WORKSPACE_ENTRIES['@testreport/reporter/delivery']);
    const heavy = [...external].filter(([spec]) => HEAVY.includes(spec));
    expect(heavy, `loaded at start: ${heavy.map(([s, f]) => `${s} (${f})`).join(', ')}`).toEqual([]);
    expect(files.filter((f) => /contract\/src\/(endpoints|common|tests|runs)\.ts$/.test(f))).toEqual([]);
  });

  it('the built binary answers --version without loading them', () => {
    const bin = join(PACKAGES, 'cli/dist/bin.js');
    expect(existsSync(bin), 'npm run build first').toBe(true);
    // A loader hook that prints every module the process resolves.
    const dir = mkdtempSync(join(tmpdir(), 'cli-loads-'));
    const hook = join(dir, 'hook.mjs');
    writeFileSync(
      hook,
      "import { register } from 'node:module';\n" +
        `register('data:text/javascript,' + encodeURIComponent(${JSON.stringify("export async function resolve(s, c, next) { const r = await next(s, c); process.stderr.write('loaded ' + r.url + '\\n'); return r; }")}));\n`,
    );
    try {
      const r = spawnSync(process.execPath, ['--import', pathToFileURL(hook).href, bin, '--version'], { encoding: 'utf8' });
      expect(r.status, r.stderr).toBe(0);
      expect(r.stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
      const loaded = r.stderr.split('\n').filter((l) => l.startsWith('loaded ')).map((l) => l.slice('loaded '.length));
      // The hook did see the binary's own imports.
      expect(loaded.some((u) => u.includes('/commander/'))).toBe(true);
      expect(loaded.some((u) => u.endsWith('/client/dist/core.js'))).toBe(true);
      const heavy = loaded.filter((u) => /\/node_modules\/(zod|ora|undici)\/|\/(contract|client)\/dist\/index\.js$/.test(u));
      expect(heavy).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
