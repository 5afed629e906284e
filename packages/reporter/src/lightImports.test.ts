import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const packages = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
/** The zod-free entries of the workspace packages, by the name code imports them with. */
const LIGHT_ENTRIES: Record<string, string> = {
  '@testreport/contract/core': join(packages, 'contract/src/core.ts'),
  '@testreport/client/core': join(packages, 'client/src/core.ts'),
};

/**
 * Every module `entry` loads when it is evaluated: static `import … from` and `export … from`,
 * not `import type` (erased) and not `await import()` (loaded only when that code runs).
 * Returns the bare specifiers it reaches outside the light entries, with the file importing each.
 */
function staticGraph(entry: string): { files: string[]; external: Map<string, string> } {
  const seen = new Set<string>();
  const external = new Map<string, string>();
  const queue = [entry];
  while (queue.length > 0) {
    const file = queue.pop()!;
    if (seen.has(file)) continue;
    seen.add(file);
    const source = readFileSync(file, 'utf8');
    for (const m of source.matchAll(/^\s*(?:import|export)\s+(?!type\b)(?:[^'"]*?\sfrom\s+)?['"]([^'"]+)['"]/gm)) {
      const spec = m[1];
      if (spec.startsWith('.')) queue.push(resolve(dirname(file), spec.replace(/\.js$/, '.ts')));
      else if (LIGHT_ENTRIES[spec]) queue.push(LIGHT_ENTRIES[spec]);
      else if (!spec.startsWith('node:')) external.set(spec, file);
    }
  }
  return { files: [...seen], external };
}

describe('what the reporter loads into Playwright’s process', () => {
  it('the session reaches the SDK and the contract only through their zod-free core entries', () => {
    const { files, external } = staticGraph(join(packages, 'reporter/src/session.ts'));
    // The walk did follow the imports into both packages.
    expect(files).toContain(LIGHT_ENTRIES['@testreport/client/core']);
    expect(files.some((f) => f.endsWith('contract/src/routes.ts'))).toBe(true);
    const heavy = [...external].filter(([spec]) => spec === 'zod' || spec.startsWith('@testreport/') || spec === 'undici');
    expect(heavy, `imported by the session's modules: ${heavy.map(([s, f]) => `${s} (${f})`).join(', ')}`).toEqual([]);
  });

  it('the core entries load no zod and no schema module', () => {
    for (const entry of Object.values(LIGHT_ENTRIES)) {
      const { files, external } = staticGraph(entry);
      expect([...external.keys()]).not.toContain('zod');
      expect(files.filter((f) => /contract\/src\/(endpoints|common|tests|runs)\.ts$/.test(f))).toEqual([]);
    }
  });
});
