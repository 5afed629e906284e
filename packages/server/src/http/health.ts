import type { Hono } from 'hono';
import type { Services } from '../services.js';

/**
 * `/healthz` for load balancers: 200 when this server can reach its database and its artifact
 * store, 503 naming what it cannot reach (it is up, but should be taken out of rotation).
 */
export function mountHealth(app: Hono, services: Services) {
  const { db, store, logger } = services.deps;
  const probe = async (what: string, fn: () => Promise<unknown>): Promise<'ok' | 'unreachable'> => {
    try {
      await fn();
      return 'ok';
    } catch (err) {
      logger.warn(`healthz: ${what} unreachable`, err);
      return 'unreachable';
    }
  };
  app.get('/healthz', async (c) => {
    const [database, storage] = await Promise.all([
      probe('database', () => db.selectFrom('users').select('id').limit(1).execute()),
      probe('storage', () => store.check()),
    ]);
    const ok = database === 'ok' && storage === 'ok';
    return c.json({ status: ok ? 'ok' : 'unavailable', database, storage }, ok ? 200 : 503);
  });
}
