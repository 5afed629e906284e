import { randomUUID } from 'node:crypto';
import { constants, createReadStream, createWriteStream } from 'node:fs';
import { access, mkdir, readdir, rename, rm, rmdir, stat } from 'node:fs/promises';
import { dirname, join, resolve, sep } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { assertArtifactKey, type ArtifactStore } from './store.js';

async function subdirs(dir: string): Promise<string[]> {
  try {
    return (await readdir(dir, { withFileTypes: true })).filter((e) => e.isDirectory()).map((e) => e.name);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
}

/** Artifact bytes as files under `root`, one file per key. */
export function createLocalArtifactStore(root: string): ArtifactStore {
  const base = resolve(root);
  const pathOf = (key: string, prefix = false) => {
    const p = resolve(base, ...assertArtifactKey(key, prefix));
    if (!p.startsWith(base + sep)) throw new Error(`invalid artifact key: ${JSON.stringify(key)}`);
    return p;
  };

  return {
    async put(key, body: Readable) {
      // The body may fail while we are still creating directories; pipeline reports it afterwards,
      // this listener only keeps it from being an unhandled 'error' event meanwhile.
      body.on('error', () => {});
      const target = pathOf(key);
      await mkdir(dirname(target), { recursive: true });
      // Same directory as the target, so the final rename is atomic and readers never see a half file.
      const temp = join(dirname(target), `.tmp-${randomUUID()}`);
      const out = createWriteStream(temp, { flags: 'wx' });
      try {
        await pipeline(body, out);
        const { size } = await stat(temp);
        await rename(temp, target);
        return { size };
      } catch (err) {
        // A body that fails at once rejects before the file is even open: wait until the stream has
        // opened and closed it, or the file appears after the rm below and is left behind.
        if (!out.closed) await new Promise<void>((resolve) => out.once('close', () => resolve()));
        await rm(temp, { force: true });
        throw err;
      }
    },
    async get(key, range) {
      const path = pathOf(key);
      await stat(path); // surfaces ENOENT before a stream is handed out
      return range ? createReadStream(path, { start: range.start, end: range.end }) : createReadStream(path);
    },
    async size(key) {
      try {
        return (await stat(pathOf(key))).size;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
        throw err;
      }
    },
    async delete(key) {
      await rm(pathOf(key), { force: true });
    },
    async deletePrefix(prefix) {
      await rm(pathOf(prefix, true), { recursive: true, force: true });
    },
    async check() {
      await mkdir(base, { recursive: true });
      await access(base, constants.W_OK);
    },
    async sweep(known) {
      let removed = 0;
      for (const project of await subdirs(join(base, 'projects'))) {
        for (const run of await subdirs(join(base, 'projects', project, 'runs'))) {
          const dir = join(base, 'projects', project, 'runs', run);
          const names = (await readdir(dir, { withFileTypes: true })).filter((e) => e.isFile()).map((e) => e.name);
          const keys = names.filter((n) => !n.startsWith('.tmp-')).map((n) => `projects/${project}/runs/${run}/${n}`);
          const keep = keys.length ? await known(keys) : new Set<string>();
          for (const n of names) {
            if (keep.has(`projects/${project}/runs/${run}/${n}`)) continue;
            await rm(join(dir, n), { force: true });
            removed++;
          }
          if (keep.size === 0) await rmdir(dir).catch(() => {});
        }
      }
      return { removed };
    },
  };
}
