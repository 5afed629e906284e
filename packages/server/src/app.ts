import { Hono } from 'hono';
import { mountStorage } from './artifacts/download.js';
import { storeFromConfig } from './artifacts/storeFromConfig.js';
import { createAuthzRepo } from './authz/repo.js';
import { createAuthz } from './authz/service.js';
import { resolveConfig, type ConfigInput, type ServerConfig } from './config.js';
import { migrateToLatest, openDatabase } from './db/database.js';
import { inSavepoint } from './db/transaction.js';
import { createEventBus } from './events/bus.js';
import { mountEdge } from './http/edge.js';
import { errorHandler } from './http/errorHandler.js';
import { mountHealth } from './http/health.js';
import { buildOpenApi } from './http/openapi.js';
import { API_PREFIX } from './http/paths.js';
import { mountEndpoints } from './http/router.js';
import { createMailer } from './mail/mailer.js';
import { handlers } from './routes.js';
import { createServices, type Services } from './services.js';
import { mountDashboard, pageOrApiNotFound } from './web/routes.js';

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
  const logger = config.logger;
  const { db, close: closeDb } = openDatabase(config.databaseUrl, { warn: (m, d) => logger.warn(m, d) });
  await migrateToLatest(db, { secret: config.secret, previousSecrets: config.previousSecrets });
  const authz = createAuthz(createAuthzRepo(db));
  const services = createServices({
    db,
    config,
    logger,
    authz,
    events: createEventBus(logger, { isolate: (fn) => inSavepoint(db, fn) }),
    store: storeFromConfig(config),
    mailer: createMailer({ smtpUrl: config.smtpUrl, dataDir: config.dataDir, logger, now: config.now }),
  });

  // Before the first request: files left by a crash mid-upload (partial, or stored without a row).
  const swept = await services.artifacts.sweepOrphans();
  if (swept > 0) logger.info(`removed ${swept} artifact file(s) left behind by an interrupted upload`);
  // After a rotation of the server secret: values sealed under the previous one move to the new one.
  const resealed = await services.webhooks.resealSecrets();
  if (resealed > 0) logger.info(`re-sealed ${resealed} webhook secret(s) under the current server secret`);

  const app = new Hono();
  mountEdge(app, config);
  mountHealth(app, services);
  app.get(`${API_PREFIX}/openapi.json`, (c) => c.json(buildOpenApi(config.publicUrl)));
  mountEndpoints(app, services, handlers);
  mountStorage(app, services);
  mountDashboard(app, services);
  app.notFound(pageOrApiNotFound(services));
  app.onError(errorHandler(logger));

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
