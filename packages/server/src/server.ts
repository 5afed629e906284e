import { readFileSync } from 'node:fs';
import { createServer as createHttpsServer } from 'node:https';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve, type ServerType } from '@hono/node-server';
import { createApp, type TestReportApp } from './app.js';
import type { ConfigInput } from './config.js';
import { applyConnectionLimits, serverOptions } from './connectionLimits.js';
import { closeAfterUnreadBodies } from './unreadBodies.js';

export interface RunningServer extends TestReportApp {
  /** {app_url}, e.g. http://localhost:43121 */
  url: string;
  port: number;
  /** Stops accepting, finishes in-flight requests, stops jobs and closes the database. */
  close(): Promise<void>;
}

export interface StartOptions {
  /** Wraps the app's fetch: the test harness checks every answer against openapi.json with it. */
  wrapFetch?: (fetch: TestReportApp['fetch']) => TestReportApp['fetch'];
}

/** Listens on the configured port (0 picks a free one) and starts background jobs. */
export async function startServer(input: ConfigInput = {}, options: StartOptions = {}): Promise<RunningServer> {
  const created = await createApp(input);
  const { config } = created;
  const tls = config.tlsCert && config.tlsKey ? { cert: readFileSync(config.tlsCert), key: readFileSync(config.tlsKey) } : null;
  const server: ServerType = await new Promise((resolve) => {
    const s = serve(
      {
        fetch: options.wrapFetch ? options.wrapFetch(created.fetch) : created.fetch,
        port: config.port,
        hostname: config.host,
        serverOptions: { ...serverOptions(config), ...tls },
        ...(tls ? { createServer: createHttpsServer } : {}),
      },
      () => resolve(s),
    );
  });
  applyConnectionLimits(server as Server, config);
  closeAfterUnreadBodies(server as Server);
  const port = (server.address() as AddressInfo).port;
  if (!config.publicUrl) {
    const host = config.host === '0.0.0.0' || config.host === '127.0.0.1' || config.host === '::' ? 'localhost' : config.host;
    config.publicUrl = `${tls ? 'https' : 'http'}://${host}:${port}`;
  }
  created.startJobs();

  let closing: Promise<void> | null = null;
  return {
    ...created,
    url: config.publicUrl,
    port,
    close() {
      closing ??= (async () => {
        await new Promise<void>((resolve) => {
          server.close(() => resolve());
          // Idle keep-alive sockets would hold close() open forever.
          (server as unknown as { closeIdleConnections?: () => void }).closeIdleConnections?.();
        });
        await created.close();
      })();
      return closing;
    },
  };
}
