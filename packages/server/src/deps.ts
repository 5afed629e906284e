import type { Authz } from './authz/service.js';
import type { ArtifactStore } from './artifacts/store.js';
import type { ServerConfig } from './config.js';
import type { Db } from './db/database.js';
import type { EventBus } from './events/bus.js';
import type { Logger } from './lib/logger.js';
import type { Mailer } from './mail/mailer.js';

/** What every service factory receives. Services build their own repositories from `db`. */
export interface Deps {
  db: Db;
  config: ServerConfig;
  logger: Logger;
  authz: Authz;
  events: EventBus;
  store: ArtifactStore;
  mailer: Mailer;
}

/** Work that runs in the background (sweepers, delivery workers); started and stopped by the server. */
export interface BackgroundJob {
  start(): void;
  /** Resolves when in-flight work has finished. */
  stop(): Promise<void>;
}
