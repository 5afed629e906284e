import { mkdtemp, readdir, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLocalArtifactStore } from './localStore.js';

const text = async (r: Readable) => {
  const chunks: Buffer[] = [];
  for await (const c of r) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString();
};

describe('local artifact store', () => {
  it('puts, reads (whole and ranged), sizes and deletes', async () => {
    const root = await mkdtemp(join(tmpdir(), 'store-'));
    const store = createLocalArtifactStore(root);
    const key = 'projects/p1/runs/r1/a1';
    expect(await store.put(key, Readable.from([Buffer.from('hello '), Buffer.from('world')]))).toEqual({ size: 11 });
    expect(await text(await store.get(key))).toBe('hello world');
    expect(await text(await store.get(key, { start: 6, end: 10 }))).toBe('world');
    expect(await store.size(key)).toBe(11);
    await store.delete(key);
    expect(await store.size(key)).toBeNull();
    await expect(store.get(key)).rejects.toThrow();
  });

  it('leaves no file behind when the stream fails', async () => {
    const root = await mkdtemp(join(tmpdir(), 'store-'));
    const store = createLocalArtifactStore(root);
    const failing = new Readable({ read() {} });
    const put = store.put('projects/p/runs/r/a', failing);
    failing.push(Buffer.from('partial'));
    failing.destroy(new Error('client went away'));
    await expect(put).rejects.toThrow('client went away');
    expect(await readdir(join(root, 'projects/p/runs/r'))).toEqual([]);
  });

  it('deletes a whole prefix and never escapes root', async () => {
    const parent = await mkdtemp(join(tmpdir(), 'store-'));
    const root = join(parent, 'artifacts');
    await writeFile(join(parent, 'keep.txt'), 'keep');
    const store = createLocalArtifactStore(root);
    await store.put('projects/p/runs/r1/a', Readable.from(['x']));
    await store.put('projects/p/runs/r2/b', Readable.from(['y']));
    await store.deletePrefix('projects/p/runs/r1/');
    expect(await store.size('projects/p/runs/r1/a')).toBeNull();
    expect(await store.size('projects/p/runs/r2/b')).toBe(1);
    for (const bad of ['../keep.txt', 'projects/../../keep.txt', '/etc/passwd', '', 'a//b', 'projects/./x', '..']) {
      await expect(store.deletePrefix(bad)).rejects.toThrow('invalid artifact key');
      await expect(store.put(bad, Readable.from(['z']))).rejects.toThrow('invalid artifact key');
    }
    expect(await readFile(join(parent, 'keep.txt'), 'utf8')).toBe('keep');
    await store.deletePrefix('projects/p/');
    expect(await store.size('projects/p/runs/r2/b')).toBeNull();
  });
});
