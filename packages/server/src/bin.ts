#!/usr/bin/env node
import { randomBytes } from 'node:crypto';
import { isMainThread, parentPort } from 'node:worker_threads';
import { Command, InvalidArgumentError } from 'commander';
import { createApp } from './app.js';
import { runExclusive } from './db/locks.js';
import type { ConfigInput } from './config.js';
import { startServer } from './server.js';
import { serveInWorker, youngGenerationSetByOperator } from './serveThread.js';

const port = (v: string) => {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0 || n > 65535) throw new InvalidArgumentError('must be a port number 0–65535');
  return n;
};

interface ServeOptions {
  port?: number; host?: string; dataDir?: string; databaseUrl?: string; storage?: string; tlsCert?: string; tlsKey?: string; firstRun: boolean;
  oidcIssuer?: string; oidcClientId?: string; oidcClientSecret?: string; oidcName?: string; oidcAllowedDomains?: string; oidcTeamClaim?: string; oidcManageTeams?: boolean;
  passwordLogin?: boolean;
}

const onOff = (v: string) => {
  if (v !== 'on' && v !== 'off') throw new InvalidArgumentError('must be on or off');
  return v === 'on';
};

/** Only the flags given: the rest comes from TESTREPORT_OIDC_* (resolveConfig). */
function oidcInput(o: ServeOptions): ConfigInput['oidc'] {
  const input = {
    issuer: o.oidcIssuer, clientId: o.oidcClientId, clientSecret: o.oidcClientSecret, name: o.oidcName, teamClaim: o.oidcTeamClaim, manageTeams: o.oidcManageTeams,
    allowedDomains: o.oidcAllowedDomains?.split(',').map((d) => d.trim()).filter(Boolean),
  };
  return Object.fromEntries(Object.entries(input).filter(([, v]) => v !== undefined));
}

const program = new Command('reporter-server')
  .description('testreport server: stores and serves test runs, results, flakiness, artifacts and webhooks')
  .showHelpAfterError();

program
  .command('serve')
  .description('start the server (flags override TESTREPORT_* environment variables)')
  .option('--port <port>', 'port to listen on; 0 picks a free port (TESTREPORT_PORT, default 4000)', port)
  .option('--host <host>', 'address to bind (TESTREPORT_HOST, default 127.0.0.1)')
  .option('--data-dir <dir>', 'where the database and artifacts live (TESTREPORT_DATA_DIR, default ./.testreport)')
  .option('--database-url <url>', 'database (TESTREPORT_DATABASE_URL; default SQLite in the data dir)')
  .option('--storage <url>', 'artifact store: s3://bucket[/prefix] (TESTREPORT_STORAGE; default the data dir; S3 settings from AWS_* variables)')
  .option('--tls-cert <file>', 'serve HTTPS with this certificate (TESTREPORT_TLS_CERT)')
  .option('--tls-key <file>', 'private key for --tls-cert (TESTREPORT_TLS_KEY)')
  .option('--no-first-run', 'do not create the first owner, team, project and API key on an empty database (TESTREPORT_FIRST_RUN=off)')
  .option('--oidc-issuer <url>', 'single sign-on: OpenID Connect issuer URL (TESTREPORT_OIDC_ISSUER); see docs/sso.md')
  .option('--oidc-client-id <id>', 'client id registered at the issuer (TESTREPORT_OIDC_CLIENT_ID)')
  .option('--oidc-client-secret <secret>', 'client secret (TESTREPORT_OIDC_CLIENT_SECRET; prefer the variable: flags show in ps)')
  .option('--oidc-name <name>', 'shown as "Sign in with <name>" (TESTREPORT_OIDC_NAME, default SSO)')
  .option('--oidc-allowed-domains <list>', 'comma-separated e-mail domains whose users are created on first sign-in; * = any (TESTREPORT_OIDC_ALLOWED_DOMAINS)')
  .option('--oidc-team-claim <claim>', 'claim whose team:role values become memberships, e.g. groups (TESTREPORT_OIDC_TEAM_CLAIM)')
  .option('--oidc-manage-teams', 'remove memberships the claim granted once it no longer lists the team (TESTREPORT_OIDC_MANAGE_TEAMS)')
  .option('--password-login <on|off>', 'e-mail and password sign-in (TESTREPORT_PASSWORD_LOGIN, default on)', onOff)
  .action(async (opts: ServeOptions) => {
    if (isMainThread && !youngGenerationSetByOperator()) return serveInWorker(new URL(import.meta.url));
    const input: ConfigInput = {
      port: opts.port, host: opts.host, dataDir: opts.dataDir, databaseUrl: opts.databaseUrl, storage: opts.storage, tlsCert: opts.tlsCert, tlsKey: opts.tlsKey,
      oidc: oidcInput(opts), passwordLogin: opts.passwordLogin,
    };
    // Installed before starting: as PID 1 in a container, a signal without a handler is ignored, so a
    // stop during migrations (or while waiting for PostgreSQL's advisory lock) would wait for SIGKILL.
    let server: Awaited<ReturnType<typeof startServer>> | null = null;
    const shutdown = async (signal: string) => {
      process.stderr.write(`received ${signal}, shutting down\n`);
      if (!server) process.exit(0);
      try {
        await server.close();
        process.exit(0);
      } catch (err) {
        process.stderr.write(`shutdown failed: ${(err as Error).message}\n`);
        process.exit(1);
      }
    };
    // In the server's thread (serveThread.ts) the main thread receives the signals and passes them on.
    if (isMainThread) {
      process.once('SIGTERM', () => void shutdown('SIGTERM'));
      process.once('SIGINT', () => void shutdown('SIGINT'));
    } else {
      parentPort?.once('message', (m: { signal?: string }) => void shutdown(m.signal ?? 'stop'));
    }
    server = await startServer(input);
    const running = server;
    // Servers of a fleet starting together on an empty database: one of them creates the owner.
    const firstRun = async () => {
      if (!(await running.services.bootstrap.isEmpty())) return;
      const password = randomBytes(12).toString('base64url');
      const r = await running.services.bootstrap.init({ email: 'owner@localhost', password, team: 'My Team', project: 'My Project', keyName: 'first-run' });
      process.stdout.write(
        [
          '',
          'First run: created an owner, a team, a project and an API key. They are shown only once:',
          `  sign in      ${r.email} / ${password}`,
          `  team         ${r.teamId}`,
          `  project      ${r.projectId}`,
          `  API key      ${r.apiKey}`,
          '',
          'Report a Playwright run:',
          `  TESTREPORT_URL=${running.url} TESTREPORT_API_KEY=${r.apiKey} npx playwright test`,
          '',
        ].join('\n') + '\n',
      );
    };
    // The flag turns it off; so does the variable, for images where flags are awkward to pass.
    const firstRunOn = opts.firstRun && !['0', 'false', 'off', 'no'].includes((process.env.TESTREPORT_FIRST_RUN ?? '').toLowerCase());
    if (firstRunOn) await runExclusive(running.services.deps.db, 'first-run', firstRun);
    process.stdout.write(`testreport listening on ${running.url}\n`);
  });

program
  .command('init')
  .description('create (idempotently) a verified owner, a team, a project and one new API key, and print them')
  .requiredOption('--email <email>', 'owner e-mail')
  .requiredOption('--password <password>', 'owner password (8–256 characters)')
  .option('--team <name>', 'team name', 'My Team')
  .option('--project <name>', 'project name', 'My Project')
  .option('--data-dir <dir>', 'data directory (TESTREPORT_DATA_DIR, default ./.testreport)')
  .option('--database-url <url>', 'database (TESTREPORT_DATABASE_URL)')
  .option('--json', 'print {userId, teamId, projectId, apiKey} as JSON')
  .action(async (opts: { email: string; password: string; team: string; project: string; dataDir?: string; databaseUrl?: string; json?: boolean }) => {
    if (opts.password.length < 8 || opts.password.length > 256) {
      process.stderr.write('error: --password must be 8–256 characters\n');
      process.exit(2);
    }
    const app = await createApp({ dataDir: opts.dataDir, databaseUrl: opts.databaseUrl, backgroundJobs: false, logger: { error() {}, warn() {}, info() {}, debug() {} } });
    try {
      const r = await app.services.bootstrap.init({ email: opts.email, password: opts.password, team: opts.team, project: opts.project });
      if (opts.json) {
        process.stdout.write(JSON.stringify({ userId: r.userId, teamId: r.teamId, projectId: r.projectId, apiKey: r.apiKey }) + '\n');
      } else {
        process.stdout.write(
          [`owner     ${r.email} (${r.userId})${r.created.user ? '' : ' (existing)'}`, `team      ${r.teamId}`, `project   ${r.projectId}`, `API key   ${r.apiKey}`, 'Store the API key now: it is not shown again.'].join('\n') + '\n',
        );
      }
    } finally {
      await app.close();
    }
  });

program.parseAsync().catch((err: Error) => {
  process.stderr.write(`error: ${err.message}\n`);
  process.exit(1);
});
