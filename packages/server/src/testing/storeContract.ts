import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { describe, expect, it } from 'vitest';
import { PayloadTooLargeError } from '../lib/errors.js';
import { jpeg } from './artifacts.js';
import { createArtifactInspector } from '../artifacts/inspectStream.js';
import type { ArtifactStore } from '../artifacts/store.js';

/** A fresh, empty store, and what an implementation could have left behind (temp files, open uploads). */
export interface StoreUnderTest {
  store: ArtifactStore;
  leftovers(): Promise<string[]>;
}

const MB = 1024 * 1024;

export const readAll = async (r: Readable) => {
  const chunks: Buffer[] = [];
  for await (const c of r) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
};

/** `bytes` in `chunkSize` pieces, so the store sees a stream of unknown length, as from an upload. */
const chunked = (bytes: Buffer, chunkSize = 256 * 1024) =>
  Readable.from(
    (function* () {
      for (let i = 0; i < bytes.length; i += chunkSize) yield bytes.subarray(i, i + chunkSize);
    })(),
  );

/** A body that sends `bytes` and fails when asked for more, as when an uploading client goes away. */
function failingAfter(bytes: Buffer): Readable {
  let sent = false;
  return new Readable({
    read() {
      if (sent) this.destroy(new Error('client went away'));
      else this.push(bytes);
      sent = true;
    },
  });
}

/**
 * What every ArtifactStore must do, run against each implementation (local disk, S3 on a real server).
 * Bodies larger than 5 MiB matter: on S3 they become multipart uploads, which must be completed,
 * ranged over and aborted like any single object.
 */
export function artifactStoreContract(name: string, open: () => Promise<StoreUnderTest>, opts: { manyKeys: number }) {
  describe(`artifact store contract: ${name}`, () => {
    it('stores a streamed body, reads it whole and by byte range, and sizes it', async () => {
      const { store } = await open();
      const key = 'projects/p1/runs/r1/a1';
      expect(await store.put(key, Readable.from([Buffer.from('hello '), Buffer.from('world')]))).toEqual({ size: 11 });
      expect((await readAll(await store.get(key))).toString()).toBe('hello world');
      expect((await readAll(await store.get(key, { start: 6, end: 10 }))).toString()).toBe('world');
      expect((await readAll(await store.get(key, { start: 0, end: 0 }))).toString()).toBe('h');
      expect(await store.size(key)).toBe(11);
      expect(await store.size('projects/p1/runs/r1/missing')).toBeNull();
      await expect(store.get('projects/p1/runs/r1/missing')).rejects.toThrow();
      await store.check();
    });

    it('stores a body larger than one upload part and serves ranges across the part boundary', async () => {
      const { store, leftovers } = await open();
      const bytes = randomBytes(11 * MB + 123);
      const key = 'projects/p1/runs/r1/big';
      expect(await store.put(key, chunked(bytes))).toEqual({ size: bytes.length });
      expect(await store.size(key)).toBe(bytes.length);
      const start = 5 * MB - 10;
      const end = 5 * MB + 9;
      expect((await readAll(await store.get(key, { start, end }))).equals(bytes.subarray(start, end + 1))).toBe(true);
      expect((await readAll(await store.get(key))).equals(bytes)).toBe(true);
      expect(await leftovers()).toEqual([key]);
    });

    it('deletes one key, and deleting a missing key is not an error', async () => {
      const { store } = await open();
      await store.put('projects/p/runs/r/a', Readable.from(['a']));
      await store.put('projects/p/runs/r/b', Readable.from(['b']));
      await store.delete('projects/p/runs/r/a');
      await store.delete('projects/p/runs/r/never-stored');
      expect(await store.size('projects/p/runs/r/a')).toBeNull();
      expect(await store.size('projects/p/runs/r/b')).toBe(1);
    });

    it(`deletes all ${opts.manyKeys} keys under a prefix and nothing beside it`, async () => {
      const { store, leftovers } = await open();
      const keys = Array.from({ length: opts.manyKeys }, (_, i) => `projects/p/runs/r1/a${String(i).padStart(4, '0')}`);
      for (let i = 0; i < keys.length; i += 25) {
        await Promise.all(keys.slice(i, i + 25).map((k) => store.put(k, Readable.from(['x']))));
      }
      // r10 shares the characters of r1 but not its prefix; r2 is a sibling run; q is another project.
      const kept = ['projects/p/runs/r10/a', 'projects/p/runs/r2/a', 'projects/q/runs/r1/a'];
      for (const k of kept) await store.put(k, Readable.from(['y']));

      await store.deletePrefix('projects/p/runs/r1/');
      expect((await leftovers()).sort()).toEqual(kept);
      await store.deletePrefix('projects/p/');
      expect(await leftovers()).toEqual(['projects/q/runs/r1/a']);
      await store.deletePrefix('projects/nothing-here/');
    });

    it('enforces the size cap while streaming: the put fails and nothing is stored', async () => {
      const { store, leftovers } = await open();
      // A screenshot may be 5 MB: a 7 MB JPEG fails the stream once a full 5 MiB part has been buffered.
      const inspector = createArtifactInspector('screenshot');
      pipeline(chunked(jpeg(7 * MB), MB), inspector.stream).catch(() => {});
      const key = 'projects/p/runs/r/too-big';
      await expect(store.put(key, inspector.stream)).rejects.toBeInstanceOf(PayloadTooLargeError);
      expect(await store.size(key)).toBeNull();
      expect(await leftovers()).toEqual([]);
    });

    it('leaves nothing behind when the body fails, before or after a full upload part (an aborted multipart upload on S3)', async () => {
      const { store, leftovers } = await open();
      for (const [key, sent] of [['projects/p/runs/r/small', 1000], ['projects/p/runs/r/large', 8 * MB]] as const) {
        await expect(store.put(key, failingAfter(randomBytes(sent)))).rejects.toThrow('client went away');
        expect(await store.size(key)).toBeNull();
      }
      expect(await leftovers()).toEqual([]);
    });

    it('refuses keys that could escape its root or prefix', async () => {
      const { store, leftovers } = await open();
      for (const bad of ['../keep.txt', 'projects/../../keep.txt', '/etc/passwd', '', 'a//b', 'projects/./x', '..']) {
        await expect(store.put(bad, Readable.from(['z']))).rejects.toThrow('invalid artifact key');
        await expect(store.deletePrefix(bad)).rejects.toThrow('invalid artifact key');
      }
      expect(await leftovers()).toEqual([]);
    });
  });
}
