import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const PACKAGES = resolve(dirname(fileURLToPath(import.meta.url)), '../../packages');

/** Workspace entries by the name code imports them with: the walk follows these into their sources. */
export const WORKSPACE_ENTRIES: Record<string, string> = {
  '@testreport/contract/core': join(PACKAGES, 'contract/src/core.ts'),
  '@testreport/client/core': join(PACKAGES, 'client/src/core.ts'),
  '@testreport/reporter': join(PACKAGES, 'reporter/src/index.ts'),
  '@testreport/reporter/delivery': join(PACKAGES, 'reporter/src/delivery/index.ts'),
};

/**
 * Every module `entry` loads when it is evaluated: static `import … from` and `export … from`,
 * not `import type` (erased) and not `await import()` (loaded only when that code runs).
 * Returns the files it walked and the bare specifiers it reaches outside `follow`, with the file
 * importing each.
 */
export function staticGraph(entry: string, follow: Record<string, string>): { files: string[]; external: Map<string, string> } {
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
      else if (follow[spec]) queue.push(follow[spec]);
      else if (!spec.startsWith('node:')) external.set(spec, file);
    }
  }
  return { files: [...seen], external };
}
