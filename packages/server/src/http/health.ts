import { statfs } from 'node:fs/promises';
import type { Hono } from 'hono';
import type { Services } from '../services.js';

/**
 * Below this much free space the data dir's disk counts as full: SQLite needs room for the WAL and
 * an upload for its file, and a request would be refused with 507 anyway.
 */
export const MIN_FREE_BYTES = 1024 * 1024;

/**
 * `/healthz` for load balancers: 200 when this server can reach its database and its artifact
 * store and has room on the data dir's disk; 503 naming what it cannot reach, or `"disk":"full"`
 * (it is up, but should be taken out of rotation until that is fixed).
 */
export function mountHealth(app: Hono, services: Services) {
  const { db, store, logger, config } = services.deps;
  const probe = async (what: string, fn: () => Promise<unknown>): Promise<'ok' | 'unreachable'> => {
    try {
      await fn();
      return 'ok';
    } catch (err) {
      logger.warn(`healthz: ${what} unreachable`, err);
      return 'unreachable';
    }
  };
  const diskState = async (): Promise<'ok' | 'full'> => {
    try {
      const fs = await statfs(config.dataDir);
      return fs.bavail * fs.bsize < MIN_FREE_BYTES ? 'full' : 'ok';
    } catch (err) {
      // A data dir that cannot be inspected shows up in the other probes; this one stays quiet.
      logger.debug('healthz: statfs failed', err);
      return 'ok';
    }
  };
  app.get('/healthz', async (c) => {
    const [database, storage, disk] = await Promise.all([
      probe('database', () => db.selectFrom('users').select('id').limit(1).execute()),
      probe('storage', () => store.check()),
      diskState(),
    ]);
    if (disk === 'full') logger.warn(`healthz: the disk of ${config.dataDir} is full`);
    const ok = database === 'ok' && storage === 'ok' && disk === 'ok';
    return c.json({ status: ok ? 'ok' : 'unavailable', database, storage, disk }, ok ? 200 : 503);
  });
}
