import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PACKAGES, staticGraph, WORKSPACE_ENTRIES } from '../../../test/support/staticGraph.js';

/** The zod-free entries of the workspace packages. */
const LIGHT_ENTRIES = {
  '@testreport/contract/core': WORKSPACE_ENTRIES['@testreport/contract/core']!,
  '@testreport/client/core': WORKSPACE_ENTRIES['@testreport/client/core']!,
};

describe('what the reporter loads into Playwright’s process', () => {
  it('the session reaches the SDK and the contract only through their zod-free core entries', () => {
    const { files, external } = staticGraph(join(PACKAGES, 'reporter/src/session.ts'), LIGHT_ENTRIES);
    // The walk did follow the imports into both packages.
    expect(files).toContain(LIGHT_ENTRIES['@testreport/client/core']);
    expect(files.some((f) => f.endsWith('contract/src/routes.ts'))).toBe(true);
    const heavy = [...external].filter(([spec]) => spec === 'zod' || spec.startsWith('@testreport/') || spec === 'undici');
    expect(heavy, `imported by the session's modules: ${heavy.map(([s, f]) => `${s} (${f})`).join(', ')}`).toEqual([]);
  });

  it('the core entries load no zod and no schema module', () => {
    for (const entry of Object.values(LIGHT_ENTRIES)) {
      const { files, external } = staticGraph(entry, LIGHT_ENTRIES);
      expect([...external.keys()]).not.toContain('zod');
      expect(files.filter((f) => /contract\/src\/(endpoints|common|tests|runs)\.ts$/.test(f))).toEqual([]);
    }
  });
});
