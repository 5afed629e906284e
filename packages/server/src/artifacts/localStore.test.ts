import { mkdtemp, readdir, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLocalArtifactStore } from './localStore.js';
import { artifactStoreContract } from '../testing/storeContract.js';

artifactStoreContract('local disk', async () => {
  const root = await mkdtemp(join(tmpdir(), 'store-'));
  return {
    store: createLocalArtifactStore(root),
    // Every file under root, temp files included: an aborted put must not leave a `.tmp-*` behind.
    async leftovers() {
      const entries = await readdir(root, { recursive: true, withFileTypes: true });
      return entries.filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name).slice(root.length + 1));
    },
  };
}, { manyKeys: 1005 });

describe('local artifact store', () => {
  it('never touches files outside its root', async () => {
    const parent = await mkdtemp(join(tmpdir(), 'store-'));
    await writeFile(join(parent, 'keep.txt'), 'keep');
    const store = createLocalArtifactStore(join(parent, 'artifacts'));
    await store.put('projects/p/runs/r1/a', Readable.from(['x']));
    for (const bad of ['../keep.txt', 'projects/../../keep.txt', '..']) {
      await expect(store.delete(bad)).rejects.toThrow('invalid artifact key');
      await expect(store.deletePrefix(bad)).rejects.toThrow('invalid artifact key');
    }
    await store.deletePrefix('projects/');
    expect(await readFile(join(parent, 'keep.txt'), 'utf8')).toBe('keep');
    expect(await readdir(parent)).toEqual(expect.arrayContaining(['keep.txt', 'artifacts']));
  });
});
