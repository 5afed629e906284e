// The images of the image test. Base images no registry can give us here are made locally and cached
// (podman's store plus the Debian rootfs under /var/tmp), keyed by what they are made from.
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { containersConf, podman, sh, WORK } from './lib.mjs';

const TOOLS = ['podman', 'runc', 'mmdebstrap', 'podman-compose'];

export async function ensureTools() {
  const missing = [];
  for (const t of TOOLS) if ((await sh('sh', ['-c', `command -v ${t}`], { check: false })).code !== 0) missing.push(t);
  if (missing.length) {
    const install = `apt-get install -y ${missing.join(' ')}`;
    if (process.getuid?.() !== 0) throw new Error(`missing ${missing.join(', ')}: install them with\n  sudo apt-get update && sudo ${install}`);
    await sh('apt-get', ['update', '-qq']);
    await sh('apt-get', ['install', '-y', '-qq', ...missing], { env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
  }
  containersConf();
}

const exists = async (image) => (await podman(['image', 'exists', image], { check: false })).code === 0;
const hashOf = (...files) => createHash('sha256').update(files.map((f) => readFileSync(f)).join('\0')).digest('hex').slice(0, 10);

/** Debian bookworm minbase, from the archive apt is configured with (~50 s once, then cached). */
async function debianImage() {
  const tag = 'localhost/testreport-debian:bookworm';
  if (await exists(tag)) return tag;
  mkdirSync(WORK, { recursive: true });
  const tar = join(WORK, 'debian-bookworm.tar');
  if (!existsSync(tar)) {
    const exclude = ['/usr/share/doc/*', '/usr/share/man/*', '/usr/share/locale/*', '/usr/share/info/*'].map((p) => `--dpkgopt=path-exclude=${p}`);
    const part = join(WORK, `debian-bookworm.${process.pid}.part`);
    await sh('mmdebstrap', ['--quiet', '--variant=minbase', '--format=tar', ...exclude, '--customize-hook=rm -rf "$1"/var/lib/apt/lists/* "$1"/var/cache/apt/*.bin', 'bookworm', part]);
    renameSync(part, tar);
  }
  await podman(['import', tar, tag]);
  return tag;
}

/**
 * A Node installation laid out as the official image lays it out, keyed by Node's version: the host's
 * own, or the one under $TEST_IMAGE_NODE_PREFIX (e.g. an unpacked Node 24 tarball, to check the
 * image on the Node its default base has); npm comes from there or else from the host.
 */
async function nodeImage(here, debian) {
  const file = join(here, 'node-base.Containerfile');
  const hostPrefix = dirname(dirname(process.execPath));
  const prefix = process.env.TEST_IMAGE_NODE_PREFIX || hostPrefix;
  const nodeBin = prefix === hostPrefix ? process.execPath : join(prefix, 'bin/node');
  const version = (await sh(nodeBin, ['--version'])).stdout.trim().slice(1);
  const tag = `localhost/testreport-node:${version}-${hashOf(file)}`;
  if (await exists(tag)) return tag;
  const headers = join(prefix, 'include/node');
  const npm = [join(prefix, 'lib/node_modules/npm'), join(hostPrefix, 'lib/node_modules/npm')].find((p) => existsSync(p));
  if (!existsSync(headers) || !npm) throw new Error(`no include/node or npm under ${prefix} (needed for the local Node base image)`);
  const ctx = join(WORK, `node-context-${process.pid}`);
  rmSync(ctx, { recursive: true, force: true });
  mkdirSync(join(ctx, 'include'), { recursive: true });
  cpSync(nodeBin, join(ctx, 'node'));
  cpSync(headers, join(ctx, 'include/node'), { recursive: true });
  cpSync(npm, join(ctx, 'npm'), { recursive: true });
  try {
    await podman(['build', '--format', 'docker', '--build-arg', `DEBIAN_IMAGE=${debian}`, '-t', tag, '-f', file, ctx]);
  } finally {
    rmSync(ctx, { recursive: true, force: true });
  }
  return tag;
}

/** Debian's PostgreSQL 15 behind the official image's interface (no registry: no postgres:16 here). */
async function postgresImage(here, debian) {
  const file = join(here, 'postgres.Containerfile');
  const tag = `localhost/testreport-postgres:15-${hashOf(file, join(here, 'postgres-entrypoint.sh'))}`;
  if (await exists(tag)) return tag;
  await podman(['build', '--format', 'docker', '--build-arg', `DEBIAN_IMAGE=${debian}`, '-t', tag, '-f', file, here]);
  return tag;
}

export async function ensureBaseImages(root) {
  const here = join(root, 'test/image');
  const debian = await debianImage();
  const [node, postgres] = await Promise.all([nodeImage(here, debian), postgresImage(here, debian)]);
  return { debian, node, postgres };
}

/**
 * The Containerfile as a user builds it, with this sandbox's bases and its ways around the network:
 * npm's registry through a TLS proxy whose CA is in the host's bundle, no GitHub or nodejs.org (so
 * better-sqlite3 is compiled against the base image's headers). `--format docker` keeps HEALTHCHECK.
 */
export async function buildServerImage(root, bases) {
  const tag = 'localhost/testreport-server:test';
  const ca = [process.env.NODE_EXTRA_CA_CERTS, '/etc/ssl/certs/ca-certificates.crt'].find((f) => f && existsSync(f));
  const caArgs = ca ? ['-v', `${ca}:/run/hostca.crt:ro`, '--build-arg', 'NPM_CAFILE=/run/hostca.crt'] : [];
  // --jobs 2: the build and dependency stages are independent; one waits on the network while the other compiles.
  const args = ['build', '--format', 'docker', '--jobs', '2', ...caArgs, '--build-arg', `NODE_IMAGE=${bases.node}`, '--build-arg', `RUNTIME_IMAGE=${bases.debian}`];
  args.push('--build-arg', 'NODE_HEADERS_DIR=/usr/local', '--build-arg', 'BUILD_FROM_SOURCE=true', '-t', tag, root);
  await podman(args);
  return tag;
}

export async function imageSize(image) {
  return Number((await podman(['image', 'inspect', '--format', '{{.Size}}', image])).stdout.trim());
}
