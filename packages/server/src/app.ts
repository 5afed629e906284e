import { join } from 'node:path';
import { Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { mountStorage } from './artifacts/download.js';
import { createLocalArtifactStore } from './artifacts/localStore.js';
import { createAuthzRepo } from './authz/repo.js';
import { createAuthz } from './authz/service.js';
import { resolveConfig, type ConfigInput, type ServerConfig } from './config.js';
import { migrateToLatest, openDatabase } from './db/database.js';
import { createEventBus } from './events/bus.js';
import { toErrorResponse } from './http/errorHandler.js';
import { buildOpenApi } from './http/openapi.js';
import { API_PREFIX, mountEndpoints } from './http/router.js';
import { newId } from './lib/ids.js';
import { createMailer } from './mail/mailer.js';
import { handlers } from './routes.js';
import { createServices, type Services } from './services.js';
import { mountPages } from './web/pages.js';

/** JSON bodies above this are refused with 413; artifacts go through the streaming upload instead. */
const MAX_JSON_BODY = 64 * 1024 * 1024;

export interface TestReportApp {
  app: Hono;
  config: ServerConfig;
  services: Services;
  fetch: (req: Request, env?: unknown) => Response | Promise<Response>;
  /** Starts sweepers and delivery workers (the server calls it once it listens). */
  startJobs(): void;
  /** Stops background jobs and closes the database. */
  close(): Promise<void>;
}

/** Builds the whole server in-process (database migrated, services wired) without listening. */
export async function createApp(input: ConfigInput = {}): Promise<TestReportApp> {
  const config = resolveConfig(input);
  const { db, close: closeDb } = openDatabase(config.databaseUrl);
  await migrateToLatest(db);
  const logger = config.logger;
  const authz = createAuthz(createAuthzRepo(db));
  const services = createServices({
    db,
    config,
    logger,
    authz,
    events: createEventBus(logger),
    store: createLocalArtifactStore(join(config.dataDir, 'artifacts')),
    mailer: createMailer({ smtpUrl: config.smtpUrl, dataDir: config.dataDir, logger, now: config.now }),
  });

  const app = new Hono();
  app.use('*', async (c, next) => {
    c.header('X-Request-Id', c.req.header('x-request-id')?.slice(0, 100) || newId());
    c.header('X-Content-Type-Options', 'nosniff');
    if (config.publicUrl.startsWith('https://')) c.header('Strict-Transport-Security', 'max-age=31536000');
    await next();
  });
  const jsonBodyLimit = bodyLimit({ maxSize: MAX_JSON_BODY, onError: (c) => c.json({ error: { code: 'PAYLOAD_TOO_LARGE', message: 'Request body is too large' } }, 413) });
  // Uploads stream past this limit on purpose: the route enforces each artifact type's own cap while streaming.
  app.use(`${API_PREFIX}/*`, (c, next) => (c.req.path === `${API_PREFIX}/upload` ? next() : jsonBodyLimit(c, next)));
  app.use('/auth/*', bodyLimit({ maxSize: 64 * 1024, onError: (c) => c.json({ error: { code: 'PAYLOAD_TOO_LARGE', message: 'Request body is too large' } }, 413) }));
  // A load balancer takes a server out of rotation on 503: it is up but cannot reach its database.
  app.get('/healthz', async (c) => {
    try {
      await db.selectFrom('users').select('id').limit(1).execute();
    } catch (err) {
      logger.warn('healthz: database unreachable', err);
      return c.json({ status: 'unavailable', database: 'unreachable' }, 503);
    }
    return c.json({ status: 'ok', database: 'ok' });
  });
  app.get(`${API_PREFIX}/openapi.json`, (c) => c.json(buildOpenApi(config.publicUrl)));
  mountEndpoints(app, services, handlers);
  mountStorage(app, services);
  mountPages(app);
  app.notFound((c) => c.json({ error: { code: 'NOT_FOUND', message: `No route for ${c.req.method} ${c.req.path}` } }, 404));
  app.onError((err, c) => toErrorResponse(err, c, logger));

  let jobsRunning = false;
  return {
    app,
    config,
    services,
    fetch: app.fetch,
    startJobs() {
      if (jobsRunning || !config.backgroundJobs) return;
      jobsRunning = true;
      for (const j of services.jobs) j.start();
    },
    async close() {
      if (jobsRunning) await Promise.all(services.jobs.map((j) => j.stop()));
      jobsRunning = false;
      await closeDb();
    },
  };
}
