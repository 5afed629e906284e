import { execFile } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort } from './ports.js';

const run = promisify(execFile);

/** Debian's PostgreSQL 15 binaries (`apt-get install postgresql-15`). */
const PG_BIN = process.env.TESTREPORT_TEST_PG_BIN ?? '/usr/lib/postgresql/15/bin';

export interface PrivatePostgres {
  /** `postgres://postgres@127.0.0.1:<port>/postgres`: trust auth on loopback only. */
  url: string;
  port: number;
  /** `pg_ctl stop -m fast`: every connection is cut (57P01), new ones are refused until start(). */
  stop(): Promise<void>;
  /** `pg_ctl start`, resolving once it accepts connections. */
  start(): Promise<void>;
  /** Stops the cluster and removes its files. */
  close(): Promise<void>;
}

/**
 * A PostgreSQL cluster of its own, in a temp dir on a free port, for tests that stop and start the
 * database under a running server: the machine's shared cluster must never be restarted. initdb
 * refuses to run as root, so as root the cluster belongs to (and runs as) the `postgres` user.
 */
export async function startPrivatePostgres(): Promise<PrivatePostgres> {
  if (!existsSync(join(PG_BIN, 'initdb'))) throw new Error(`PostgreSQL binaries not found in ${PG_BIN}: apt-get install -y postgresql-15 (or set TESTREPORT_TEST_PG_BIN)`);
  const asRoot = process.getuid?.() === 0;
  const dir = mkdtempSync(join(tmpdir(), 'testreport-pg-'));
  const data = join(dir, 'data');
  const owner = asRoot ? { uid: Number((await run('id', ['-u', 'postgres'])).stdout.trim()), gid: Number((await run('id', ['-g', 'postgres'])).stdout.trim()) } : null;
  if (owner) chownSync(dir, owner.uid, owner.gid);
  const as = (cmd: string, args: string[]) => (asRoot ? run('runuser', ['-u', 'postgres', '--', join(PG_BIN, cmd), ...args]) : run(join(PG_BIN, cmd), args));
  const port = await freePort();
  // Sockets in the temp dir, not /var/run/postgresql, where the shared cluster keeps its own.
  const options = `-c listen_addresses=127.0.0.1 -c port=${port} -c unix_socket_directories=${dir} -c fsync=off -c max_connections=50`;
  const start = async () => {
    await as('pg_ctl', ['start', '-D', data, '-w', '-t', '60', '-l', join(dir, 'log'), '-o', options]);
  };
  const stop = async () => {
    await as('pg_ctl', ['stop', '-D', data, '-m', 'fast', '-w', '-t', '60']);
  };
  let running = false;
  try {
    await as('initdb', ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync']);
    await start();
    running = true;
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`could not start a private PostgreSQL (as ${asRoot ? 'postgres' : userInfo().username}): ${(err as Error).message}`);
  }
  // A test runner that dies without its afterAll must not leave the cluster running.
  const killOnExit = () => {
    if (running) execFile(asRoot ? 'runuser' : join(PG_BIN, 'pg_ctl'), asRoot ? ['-u', 'postgres', '--', join(PG_BIN, 'pg_ctl'), 'stop', '-D', data, '-m', 'immediate'] : ['stop', '-D', data, '-m', 'immediate']);
  };
  process.once('exit', killOnExit);
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    port,
    async stop() {
      await stop();
      running = false;
    },
    async start() {
      await start();
      running = true;
    },
    async close() {
      process.off('exit', killOnExit);
      if (running) await stop().catch(() => {});
      running = false;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
