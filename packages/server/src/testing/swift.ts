import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { CreateBucketCommand, ListMultipartUploadsCommand, ListObjectsV2Command, type S3Client } from '@aws-sdk/client-s3';
import { createS3Client, type S3ConnectionOptions } from '../artifacts/s3Store.js';
import { freePort } from './ports.js';
import { BUILD_RINGS_PY, proxyConf, storageServerConf, RUN_SERVER_PY, swiftConf, SWIFT_REGION, SWIFT_S3_CREDENTIALS, type SwiftLayout, type SwiftPorts } from './swiftConfig.js';

const run = promisify(execFile);

// Debian's interpreter: the Swift packages install into it, not into a pyenv or venv first on PATH.
const PYTHON = '/usr/bin/python3';

export const SWIFT_PACKAGES = 'swift swift-proxy swift-object swift-container swift-account memcached python3-swift';

export interface SwiftS3 {
  /** `http://127.0.0.1:<port>`: the S3 API of the proxy. */
  endpoint: string;
  /** Endpoint, region, path-style and credentials, ready for `createS3Client` or the server's config. */
  connection: S3ConnectionOptions & { endpoint: string; credentials: { accessKeyId: string; secretAccessKey: string } };
  /** A client with the tempauth credentials, for checking what is (not) in a bucket. */
  client: S3Client;
  /** Keys of the objects under `prefix`, then `unfinished upload of <key>` for each open multipart upload. */
  contents(bucket: string, prefix: string): Promise<string[]>;
  /** A bucket created at start. */
  bucket: string;
  /** Stops the Swift servers (the S3 API refuses connections); their data stays for start(). */
  stop(): Promise<void>;
  /** Starts the stopped servers again, resolving once every one accepts connections. */
  start(): Promise<void>;
  close(): Promise<void>;
}

// One file per Debian package: checking them costs nothing, unlike starting Python to try imports.
const PACKAGE_FILES = ['/usr/bin/swift-proxy-server', '/usr/bin/swift-object-server', '/usr/bin/swift-container-server', '/usr/bin/swift-account-server', '/usr/bin/memcached', '/usr/lib/python3/dist-packages/swift/common/middleware/s3api'];

const accepts = (port: number) =>
  new Promise<boolean>((resolve) => {
    const s = connect(port, '127.0.0.1');
    s.once('connect', () => (s.destroy(), resolve(true)));
    s.once('error', () => resolve(false));
  });

/**
 * A real OpenStack Swift with its S3 API (SigV4 and presigned URLs checked for real) on loopback:
 * memcached, account, container, object and proxy servers on free ports, configs and data in a temp
 * dir. Throws one line naming the Debian packages when Swift is not installed.
 */
export async function startSwift(): Promise<SwiftS3> {
  if (!PACKAGE_FILES.every((f) => existsSync(f))) {
    throw new Error(`OpenStack Swift is not installed; the S3 tests need it: apt-get install -y ${SWIFT_PACKAGES}`);
  }
  const dir = mkdtempSync(join(tmpdir(), 'testreport-swift-'));
  const ports: SwiftPorts = { proxy: await freePort(), account: await freePort(), container: await freePort(), object: await freePort(), memcached: await freePort() };
  const layout: SwiftLayout = { dir, devices: join(dir, 'srv'), user: userInfo().username, ports };
  mkdirSync(join(layout.devices, 'd1'), { recursive: true });
  writeFileSync(join(dir, 'swift.conf'), swiftConf());
  writeFileSync(join(dir, 'run_server.py'), RUN_SERVER_PY);
  writeFileSync(join(dir, 'build_rings.py'), BUILD_RINGS_PY);
  const confs = { 'account-server': storageServerConf(layout, 'account'), 'container-server': storageServerConf(layout, 'container'), 'object-server': storageServerConf(layout, 'object'), 'proxy-server': proxyConf(layout) };
  for (const [name, text] of Object.entries(confs)) writeFileSync(join(dir, `${name}.conf`), text);

  const children: ChildProcess[] = [];
  const output: string[] = [];
  // A test runner that dies without its afterAll must not leave Swift servers running.
  const killAll = () => children.forEach((c) => c.exitCode === null && c.signalCode === null && c.kill('SIGKILL'));
  process.once('exit', killAll);
  const exitOf = (c: ChildProcess) =>
    new Promise<void>((resolve) => {
      if (c.exitCode !== null || c.signalCode !== null) return resolve();
      c.once('exit', () => resolve());
      c.kill('SIGTERM');
    });
  const close = async () => {
    process.off('exit', killAll);
    await Promise.all(children.map(exitOf));
    rmSync(dir, { recursive: true, force: true });
  };
  const start = (label: string, cmd: string, args: string[]) => {
    const child = spawn(cmd, args, { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
    const keep = (b: Buffer) => output.push(`${label}: ${b.toString()}`);
    child.stdout!.on('data', keep);
    child.stderr!.on('data', keep);
    children.push(child);
  };
  const startSwiftServers = () => {
    for (const kind of Object.keys(confs)) start(kind, PYTHON, [join(dir, 'run_server.py'), dir, join(dir, `${kind}.conf`), kind]);
  };
  const swiftServers = () => children.filter((c) => c.spawnargs.includes(join(dir, 'run_server.py')));
  const waitForPorts = async () => {
    // Generous: four Python servers importing Swift on a busy CI machine take a while.
    const deadline = Date.now() + 90_000;
    for (const port of Object.values(ports)) {
      while (!(await accepts(port))) {
        const dead = children.find((c) => c.exitCode !== null);
        if (dead || Date.now() > deadline) throw new Error(`Swift did not start (${dead ? `${dead.spawnargs.join(' ')} exited ${dead.exitCode}` : 'timeout'}):\n${output.join('').slice(-3000)}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    }
  };

  try {
    await run(PYTHON, [join(dir, 'build_rings.py'), dir, `account=${ports.account}`, `container=${ports.container}`, `object=${ports.object}`]);
    start('memcached', 'memcached', ['-l', '127.0.0.1', '-p', String(ports.memcached), '-U', '0', ...(process.getuid?.() === 0 ? ['-u', 'root'] : [])]);
    startSwiftServers();
    await waitForPorts();
  } catch (err) {
    await close();
    throw err;
  }

  const endpoint = `http://127.0.0.1:${ports.proxy}`;
  const connection = { endpoint, region: SWIFT_REGION, forcePathStyle: true, credentials: { ...SWIFT_S3_CREDENTIALS } };
  const admin = await createS3Client(connection);
  const bucket = 'testreport';
  try {
    await admin.send(new CreateBucketCommand({ Bucket: bucket }));
  } catch (err) {
    admin.destroy();
    await close();
    throw err;
  }
  return {
    endpoint,
    connection,
    client: admin,
    async contents(Bucket, Prefix) {
      const found: string[] = [];
      let ContinuationToken: string | undefined;
      do {
        const page = await admin.send(new ListObjectsV2Command({ Bucket, Prefix, ContinuationToken }));
        found.push(...(page.Contents ?? []).map((c) => c.Key!));
        ContinuationToken = page.IsTruncated ? page.NextContinuationToken : undefined;
      } while (ContinuationToken);
      const uploads = await admin.send(new ListMultipartUploadsCommand({ Bucket, Prefix }));
      return [...found, ...(uploads.Uploads ?? []).map((u) => `unfinished upload of ${u.Key}`)];
    },
    bucket,
    async stop() {
      const stopping = swiftServers();
      await Promise.all(stopping.map(exitOf));
      children.splice(0, children.length, ...children.filter((c) => !stopping.includes(c)));
    },
    async start() {
      startSwiftServers();
      await waitForPorts();
    },
    async close() {
      admin.destroy();
      await close();
    },
  };
}
